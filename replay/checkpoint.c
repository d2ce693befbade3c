/* checkpoint.c: a training run's checkpoint (see checkpoint.h). */
#include "replay/checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/check.h"
#include "common/hash.h"

uint64_t tta_ckpt_spec_hash(const tta_replay_spec *s, int K) {
    buf b = {0};
    buf_printf(&b, "%s|%s|%s|%s|%d|%d|%d|%.17g|%d|%ld|%d|%d|%d|%.17g|%.17g|%d", s->benchmark, s->dataset_kind,
               s->model, s->model_params ? s->model_params : "", s->batch_size, s->optimizer.kind, s->optimizer.nesterov,
               s->optimizer.momentum, s->optimizer.caffe, s->train_subset, s->crop_pad, s->flip, K,
               s->optimizer.weight_decay, s->schedule.warmup_epochs, s->lr_scaling);
    uint64_t h = tta_hash64(buf_str(&b), b.len, 0);
    buf_free(&b);
    return h;
}

void tta_replay_checkpoint_path(const tta_replay_spec *spec, uint64_t seed, const tta_replay_options *opt,
                                char *path, size_t len) {
    snprintf(path, len, "%s/replay/checkpoints/%s/%s/seed_%llu.ckpt", opt->log_dir ? opt->log_dir : ".",
             opt->system ? opt->system : "local", spec->benchmark, (unsigned long long)seed);
}

/* The payload's sizes in floats: parameters, buffers, optimizer state. */
static void payload_sizes(tta_session *s, size_t *np, size_t *nb, size_t *ns) {
    *np = tta_model_num_params(s->m);
    *nb = tta_model_num_buffers(s->m);
    *ns = tta_optim_state_bytes(&s->optim) / sizeof(float);
}

int tta_ckpt_save(tta_session *s, const char *path, tta_ckpt_header *h, tta_error *err) {
    size_t np, nb, ns;
    payload_sizes(s, &np, &nb, &ns);
    memcpy(h->magic, TTA_CKPT_MAGIC, 8);
    h->nparams = np;
    h->nbuffers = nb;
    h->nstate = ns;
    h->optim_step = s->optim.step;
    size_t n = np + nb + ns;
    float *p = mallocCheck((n + 1) * sizeof *p);
    s->be->ops->download(s->be->ctx, p, tta_model_params(s->m), np * sizeof *p);
    s->be->ops->download(s->be->ctx, p + np, tta_model_buffers(s->m), nb * sizeof *p);
    tta_session_pull_state(s); /* (a velocity on the device) */
    if (ns) memcpy(p + np + nb, s->optim.state, ns * sizeof *p);
    h->payload_hash = tta_hash64(p, n * sizeof *p, 0);
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(h, sizeof *h, 1, f) == 1 && fwrite(p, sizeof *p, n, f) == n;
    if (f && fclose(f) != 0) ok = 0;
    free(p);
    if (!ok || rename(tmp, path) != 0) {
        tta_fail(err, TTA_EIO, "%s: cannot write the checkpoint: %s", path, strerror(errno));
        remove(tmp);
        return TTA_EIO;
    }
    return TTA_OK;
}

int tta_ckpt_load(tta_session *s, const char *path, const tta_replay_spec *spec, uint64_t seed, tta_ckpt_header *h,
                  int *loaded, tta_error *err) {
    *loaded = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return TTA_OK;
    size_t np, nb, ns;
    payload_sizes(s, &np, &nb, &ns);
    int rc = TTA_EINPUT;
    float *p = NULL;
    if (fread(h, sizeof *h, 1, f) != 1 || memcmp(h->magic, TTA_CKPT_MAGIC, 8) != 0) {
        tta_fail(err, rc, "%s: not a tta checkpoint (or cut short)", path);
        goto out;
    }
    if (h->seed != seed || h->spec_hash != tta_ckpt_spec_hash(spec, s->K) || h->nparams != np ||
        h->nbuffers != nb || h->nstate != ns) {
        tta_fail(err, rc, "%s: made by another recipe, seed or number of workers; remove it to start afresh", path);
        goto out;
    }
    p = mallocCheck((np + nb + ns + 1) * sizeof *p);
    if (fread(p, sizeof *p, np + nb + ns, f) != np + nb + ns ||
        tta_hash64(p, (np + nb + ns) * sizeof *p, 0) != h->payload_hash) {
        tta_fail(err, rc, "%s: damaged (its contents do not match their checksum)", path);
        goto out;
    }
    s->be->ops->upload(s->be->ctx, tta_model_params(s->m), p, np * sizeof *p);
    s->be->ops->upload(s->be->ctx, tta_model_buffers(s->m), p + np, nb * sizeof *p);
    if (ns) memcpy(s->optim.state, p + np + nb, ns * sizeof *p);
    tta_session_push_state(s);
    s->optim.step = h->optim_step;
    *loaded = 1;
    rc = TTA_OK;
out:
    free(p);
    fclose(f);
    return rc;
}
