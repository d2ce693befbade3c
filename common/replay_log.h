/* replay_log.h: the names tta's replay logs use, written once for the module that writes the logs
 * (replay/) and those that read them back (ingest/, db/).
 *
 * Every replay (`tta replay`, `tta verify`) is filed under one round and one submitter, which its
 * log and its system description name (the key TTA_KEY_ROUND) since no path says them; db/'s
 * queries of replays select that round. A name here is not spelt again in code: C uses the macro,
 * SQL text is built from it (string concatenation). docs/replay.md ("Logs") describes the records.
 */
#ifndef TTA_COMMON_REPLAY_LOG_H
#define TTA_COMMON_REPLAY_LOG_H

/* The round and the submitter of every replay (`tta ls runs --round local`). */
#define TTA_REPLAY_ROUND "local"
#define TTA_REPLAY_SUBMITTER "replay"

/* The log key (and system description member) that names a replay's round. */
#define TTA_KEY_ROUND "tta_round"

#endif
