#ifndef STRATA_CSQLITE_SHIM_H
#define STRATA_CSQLITE_SHIM_H

// dladdr and Dl_info are GNU extensions in glibc's <dlfcn.h>.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <sqlite3.h>
#include <dlfcn.h>

// Entry points newer than Strata's floor (SQLite 3.26.0) are never linked by name: the binary
// must start on every library from the floor up. They are looked up at run time in the SQLite
// the process loaded (the global symbol scope: the executable and the libraries it links, on
// Linux as on Apple platforms), and callers fall back when the library lacks them.

/// The address of SQLite entry point `name` in the loaded library, or NULL when it lacks it.
static inline void *strata_sqlite3_symbol(const char *name) {
#ifdef RTLD_DEFAULT
    return dlsym(RTLD_DEFAULT, name);
#else
    void *global = dlopen(NULL, RTLD_LAZY);
    if (global == NULL) return NULL;
    void *symbol = dlsym(global, name);
    dlclose(global);
    return symbol;
#endif
}

/// 1 when `symbol` lies in the same loaded library as the `sqlite3_open_v2` Strata calls, 0 when
/// it lies in another one (a process that loaded two SQLite libraries: SQLCipher beside the
/// system's), -1 when that cannot be told (`dladdr` failed).
static inline int strata_sqlite3_symbol_is_from_linked_library(void *symbol) {
    Dl_info linked, found;
    if (symbol == NULL) return 0;
    if (dladdr((void *)&sqlite3_open_v2, &linked) == 0 || dladdr(symbol, &found) == 0) return -1;
    return linked.dli_fbase == found.dli_fbase ? 1 : 0;
}

// sqlite3_db_config is variadic, which Swift cannot call: wrap each use in a static inline function.
// https://www.sqlite.org/c3ref/db_config.html

/// Turns defensive mode on or off (SQLITE_DBCONFIG_DEFENSIVE, since 3.26).
static inline int strata_db_config_defensive(sqlite3 *db, int on) {
#ifdef SQLITE_DBCONFIG_DEFENSIVE
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, (int *)0);
#else
    return SQLITE_OK;
#endif
}

/// Reports whether defensive mode is on (SQLITE_DBCONFIG_DEFENSIVE with -1) without changing it:
/// *state is 1 or 0 and the result SQLITE_OK, or an error code when there is no such option.
static inline int strata_db_config_defensive_state(sqlite3 *db, int *state) {
#ifdef SQLITE_DBCONFIG_DEFENSIVE
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, -1, state);
#else
    (void)db;
    *state = 0;
    return SQLITE_OK;
#endif
}

/// Enables or disables double-quoted string literals in DDL and DML (SQLITE_DBCONFIG_DQS_*, since 3.29).
static inline int strata_db_config_dqs(sqlite3 *db, int on) {
#if defined(SQLITE_DBCONFIG_DQS_DDL) && defined(SQLITE_DBCONFIG_DQS_DML)
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, on, (int *)0);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, on, (int *)0);
#else
    return SQLITE_OK;
#endif
}

/// Stops the connection from checkpointing the WAL (and removing the -wal and -shm files) when it
/// closes (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, since 3.16).
static inline int strata_db_config_no_checkpoint_on_close(sqlite3 *db) {
#ifdef SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
#else
    return SQLITE_ERROR;
#endif
}

/// Reports whether `PRAGMA writable_schema` is on (SQLITE_DBCONFIG_WRITABLE_SCHEMA, since 3.28)
/// without changing it: *state is 1 or 0 and the result SQLITE_OK, or an error code when the
/// library (or header) has no such option.
static inline int strata_db_config_writable_schema_state(sqlite3 *db, int *state) {
#ifdef SQLITE_DBCONFIG_WRITABLE_SCHEMA
    return sqlite3_db_config(db, SQLITE_DBCONFIG_WRITABLE_SCHEMA, -1, state);
#else
    (void)db;
    (void)state;
    return SQLITE_ERROR;
#endif
}

/// Turns on or off SQLITE_DBCONFIG_ENABLE_FKEY and reports the resulting state.
static inline int strata_db_config_foreign_keys(sqlite3 *db, int on, int *result) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FKEY, on, result);
}

/// Turns trusted-schema mode on or off (SQLITE_DBCONFIG_TRUSTED_SCHEMA, since 3.31). Off, SQL
/// functions and virtual tables not marked innocuous cannot be used from views, triggers, CHECK
/// constraints, defaults, index expressions and generated columns. Older libraries (or headers)
/// return SQLITE_ERROR; callers fall back to `PRAGMA trusted_schema`, which they ignore silently.
static inline int strata_db_config_trusted_schema(sqlite3 *db, int on) {
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
    return sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, on, (int *)0);
#else
    return SQLITE_ERROR;
#endif
}

/// Enables or disables the two-argument fts3_tokenizer(), which registers a tokenizer from a raw
/// C pointer passed as a blob (SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, since 3.12).
static inline int strata_db_config_fts3_tokenizer(sqlite3 *db, int on) {
#ifdef SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER
    return sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, on, (int *)0);
#else
    return SQLITE_OK;
#endif
}

/// SQLITE_TRANSIENT as a callable: the Swift importer cannot import the macro's cast.
static inline sqlite3_destructor_type strata_transient(void) {
    return SQLITE_TRANSIENT;
}

#endif
