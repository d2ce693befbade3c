/* checkpointer.c: a thread that runs passive WAL checkpoints while an ingest writes
 * (db.h says why). The writer's connection tells it about commits through SQLite's
 * WAL hook; a passive checkpoint never blocks the writer or readers, it copies what it can. */
#include "db/writer.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/check.h"

struct tta_checkpointer {
    sqlite3 *db;   /* the writer's connection (hook only) */
    sqlite3 *own;  /* the checkpointing connection */
    int min_frames;
    int autocheckpoint; /* db's automatic checkpoint threshold, restored at stop */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int pending; /* a commit left min_frames or more in the WAL */
    int stop;
};

/* Called by SQLite on the writer's thread after each commit, with the frames now in the WAL. */
static int on_commit(void *arg, sqlite3 *db, const char *schema, int frames) {
    (void)db;
    tta_checkpointer *c = arg;
    if (frames >= c->min_frames && strcmp(schema, "main") == 0) {
        pthread_mutex_lock(&c->lock);
        c->pending = 1;
        pthread_cond_signal(&c->wake);
        pthread_mutex_unlock(&c->lock);
    }
    return SQLITE_OK;
}

static void *run(void *arg) {
    tta_checkpointer *c = arg;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->pending && !c->stop) pthread_cond_wait(&c->wake, &c->lock);
        if (c->stop) break;
        c->pending = 0;
        pthread_mutex_unlock(&c->lock);
        /* SQLITE_BUSY (another checkpoint running) and I/O errors are left to the next commit's
         * checkpoint, or to the close's: the WAL still holds every frame until copied. */
        sqlite3_wal_checkpoint_v2(c->own, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
        pthread_mutex_lock(&c->lock);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

tta_checkpointer *tta_checkpointer_start(sqlite3 *db, int min_frames) {
    const char *path = sqlite3_db_filename(db, "main");
    if (!path || !*path) return NULL;
    sqlite3 *own = NULL;
    if (sqlite3_open_v2(path, &own, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
        sqlite3_exec(own, "PRAGMA synchronous=NORMAL", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_close(own);
        return NULL;
    }
    int autocheckpoint = -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA wal_autocheckpoint", -1, &st, NULL) == SQLITE_OK) {
        if (sqlite3_step(st) == SQLITE_ROW) autocheckpoint = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
    }
    if (autocheckpoint < 0) {
        sqlite3_close(own);
        return NULL;
    }
    tta_checkpointer *c = callocCheck(1, sizeof *c);
    c->db = db;
    c->autocheckpoint = autocheckpoint;
    c->own = own;
    c->min_frames = min_frames > 0 ? min_frames : 1;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->wake, NULL);
    if (pthread_create(&c->thread, NULL, run, c) != 0) {
        pthread_mutex_destroy(&c->lock);
        pthread_cond_destroy(&c->wake);
        sqlite3_close(own);
        free(c);
        return NULL;
    }
    sqlite3_wal_hook(db, on_commit, c); /* replaces the automatic checkpoints while it runs */
    return c;
}

void tta_checkpointer_stop(tta_checkpointer *c) {
    if (!c) return;
    sqlite3_wal_autocheckpoint(c->db, c->autocheckpoint); /* removes the hook */
    pthread_mutex_lock(&c->lock);
    c->stop = 1;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL);
    pthread_mutex_destroy(&c->lock);
    pthread_cond_destroy(&c->wake);
    sqlite3_close(c->own);
    free(c);
}
