/* rcp_internal.h: what rcp_load.c (reading the JSON files) needs from rcp.c (the statistics).
 * Not part of the module's contract: use stats/stats.h. */
#ifndef TTA_STATS_RCP_INTERNAL_H
#define TTA_STATS_RCP_INTERNAL_H

#include "stats/stats.h"

/* Runs dropped from each end of a sorted list of epochs: 4 for unet3d, 1 otherwise. */
size_t tta_rcp_rejected(const char *benchmark);

/* A reference point from its runs' epochs (n > 2 rejected): olympic mean, ddof-0 std of all runs,
 * minimum acceptable mean for a submission of submission_runs runs. */
tta_rcp_point tta_rcp_point_of(double bs, const double *runs, size_t n, size_t rejected, size_t submission_runs);

/* Sorts set->points by batch size (stable) and fills set->pruned as rcp_checker's _prune_rcps. */
void tta_rcp_prune(tta_rcp_set *set);

#endif
