//! The schema as versioned migrations, applied in order inside one
//! transaction each and recorded in `PRAGMA user_version`.
//!
//! Version 1: trajectories, turns, questions, violations, scores.
//! Version 2: tool calls and guidance fires, and the indexes the queries
//! use. SQLite takes indexes as separate `CREATE INDEX` statements (an
//! `INDEX` clause inside `CREATE TABLE` is a syntax error).
//! Version 3: the final consensus score.
//! Version 4: the indexes no query uses dropped (PostgreSQL also drops its
//! foreign keys: see `postgres/mod.rs`).

use rusqlite::Connection;

/// Each migration brings the schema from version `i` to `i + 1`.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: the core tables.
    "CREATE TABLE trajectories (
        id INTEGER PRIMARY KEY,
        spec_id TEXT NOT NULL,
        stage TEXT,
        agent TEXT NOT NULL,
        run_id TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (spec_id, agent, run_id)
    );
    CREATE TABLE turns (
        id INTEGER PRIMARY KEY,
        trajectory_id INTEGER NOT NULL REFERENCES trajectories(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        timestamp INTEGER,
        prompt TEXT NOT NULL,
        response TEXT NOT NULL,
        token_count INTEGER,
        latency_ms INTEGER,
        UNIQUE (trajectory_id, number)
    );
    CREATE TABLE questions (
        id INTEGER PRIMARY KEY,
        turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
        text TEXT NOT NULL,
        effort TEXT NOT NULL CHECK (effort IN ('low', 'medium', 'high')),
        confidence REAL NOT NULL,
        reasons TEXT NOT NULL
    );
    CREATE TABLE violations (
        id INTEGER PRIMARY KEY,
        turn_id INTEGER NOT NULL REFERENCES turns(id) ON DELETE CASCADE,
        preference TEXT NOT NULL,
        expected TEXT NOT NULL,
        actual TEXT NOT NULL,
        severity TEXT NOT NULL CHECK (severity IN ('low', 'medium', 'high')),
        span_start INTEGER,
        span_end INTEGER
    );
    CREATE TABLE scores (
        id INTEGER PRIMARY KEY,
        trajectory_id INTEGER NOT NULL REFERENCES trajectories(id) ON DELETE CASCADE,
        r_prod REAL NOT NULL,
        r_proact REAL NOT NULL,
        r_pers REAL NOT NULL,
        total REAL NOT NULL,
        profile TEXT NOT NULL,
        technical_weight REAL NOT NULL,
        interaction_weight REAL NOT NULL,
        created_at INTEGER NOT NULL
    );",
    // 2: tool calls, guidance fires, and indexes for the queries.
    "CREATE TABLE tool_calls (
        id INTEGER PRIMARY KEY,
        trajectory_id INTEGER NOT NULL REFERENCES trajectories(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        step INTEGER,
        name TEXT NOT NULL,
        params TEXT NOT NULL,
        ok INTEGER NOT NULL,
        output_chars INTEGER NOT NULL
    );
    CREATE TABLE guidance_fires (
        id INTEGER PRIMARY KEY,
        trajectory_id INTEGER NOT NULL REFERENCES trajectories(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        classifier TEXT NOT NULL,
        confidence REAL NOT NULL,
        reason TEXT NOT NULL
    );
    CREATE INDEX idx_trajectories_spec_agent ON trajectories (spec_id, agent);
    CREATE INDEX idx_trajectories_stage_agent ON trajectories (stage, agent);
    CREATE INDEX idx_trajectories_agent_created ON trajectories (agent, created_at);
    CREATE INDEX idx_questions_turn ON questions (turn_id);
    CREATE INDEX idx_questions_effort ON questions (effort);
    CREATE INDEX idx_violations_turn ON violations (turn_id);
    CREATE INDEX idx_violations_preference ON violations (preference);
    CREATE INDEX idx_scores_trajectory ON scores (trajectory_id);
    CREATE INDEX idx_tool_calls_trajectory ON tool_calls (trajectory_id);
    CREATE INDEX idx_guidance_fires_trajectory ON guidance_fires (trajectory_id);
    CREATE INDEX idx_guidance_fires_classifier ON guidance_fires (classifier);",
    // 3: the final consensus score of each scored run (NULL when unknown:
    // runs stored before, or ranked by the legacy consensus).
    "ALTER TABLE scores ADD COLUMN final_score REAL;",
    // 4: no index on a column only a whole-table aggregate reads (the
    // effort distribution, the most violated preferences, the fires by
    // classifier read every row anyway), nor one another index's prefix
    // serves ((spec_id, agent) is the ingest key's): each cost every insert.
    "DROP INDEX IF EXISTS idx_questions_effort;
    DROP INDEX IF EXISTS idx_violations_preference;
    DROP INDEX IF EXISTS idx_guidance_fires_classifier;
    DROP INDEX IF EXISTS idx_trajectories_spec_agent;",
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The database's schema version.
pub(crate) fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
}

/// Applies migrations from the current version up to `target`, each in its
/// own immediate transaction (so two processes never migrate at once).
pub(crate) fn migrate_to(conn: &mut Connection, target: i64) -> rusqlite::Result<()> {
    loop {
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let current = version(&tx)?;
        if current >= target {
            return tx.commit();
        }
        let Some(sql) = usize::try_from(current)
            .ok()
            .and_then(|i| MIGRATIONS.get(i))
        else {
            return tx.commit();
        };
        tracing::info!(
            from = current,
            to = current + 1,
            "migrating the trajectory store"
        );
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", current + 1)?;
        tx.commit()?;
    }
}
