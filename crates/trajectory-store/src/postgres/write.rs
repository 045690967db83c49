//! A session's writes on PostgreSQL, in pieces inside one transaction
//! ([`crate::SessionWriter`]): `BEGIN` and the session's row (its key
//! known: after the key's advisory lock and the old session's delete;
//! else a placeholder); each batch of rows as arrays, one statement per
//! table, pipelined; then the last batch, the key's lock, the old
//! session's delete and the key (on a placeholder), the score and
//! `COMMIT`, pipelined. On an error the caller rolls back
//! (the server does too when the connection drops).

use tokio_postgres::Client;
use tokio_postgres::types::ToSql;

use super::Statements;
use crate::prepare::{Finish, Header, Pieces};

/// The placeholder row of a session begun: a key no session is written
/// with (U+001A, which stands for NUL in stored text), unique per
/// connection (its server process), so writers on other connections never
/// wait on it.
pub(super) const BEGIN: &str =
    "INSERT INTO trajectories (spec_id, stage, agent, run_id, created_at, updated_at)
     VALUES (chr(26), NULL, chr(26), chr(26) || 'pending-' || pg_backend_pid(), 0, 0)
     RETURNING id";

/// The trajectory row of a session begun with its key.
pub(super) const INSERT: &str =
    "INSERT INTO trajectories (spec_id, stage, agent, run_id, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id";

/// The key, stage and times given to the session once finished.
pub(super) const KEY: &str = "UPDATE trajectories SET spec_id = $1, stage = $2, agent = $3,
     run_id = $4, created_at = $5, updated_at = $6 WHERE id = $7";

/// A batch's turns with their questions and violations, which find their
/// turn's id by its number.
pub(super) const TURNS: &str = "WITH t AS (
         INSERT INTO turns (trajectory_id, number, timestamp, prompt, response, token_count, latency_ms)
         SELECT $1, u.a, u.b, u.c, u.d, u.e, u.f
         FROM UNNEST($2::int8[], $3::int8[], $4::text[], $5::text[], $6::int8[], $7::int8[])
              WITH ORDINALITY AS u(a, b, c, d, e, f, n)
         ORDER BY u.n RETURNING id, number),
     q AS (
         INSERT INTO questions (turn_id, text, effort, confidence, reasons)
         SELECT t.id, u.b, u.c, u.d, u.e
         FROM UNNEST($8::int8[], $9::text[], $10::text[], $11::float8[], $12::text[])
              WITH ORDINALITY AS u(a, b, c, d, e, n) JOIN t ON t.number = u.a
         ORDER BY u.n)
     INSERT INTO violations (turn_id, preference, expected, actual, severity, span_start, span_end)
     SELECT t.id, u.b, u.c, u.d, u.e, u.f, u.g
     FROM UNNEST($13::int8[], $14::text[], $15::text[], $16::text[], $17::text[], $18::int8[], $19::int8[])
          WITH ORDINALITY AS u(a, b, c, d, e, f, g, n) JOIN t ON t.number = u.a
     ORDER BY u.n";

/// A session's row's values: key, stage, times (`$1` to `$6`).
fn header_values(s: &Header) -> [&(dyn ToSql + Sync); 6] {
    [
        &s.spec_id,
        &s.stage,
        &s.agent,
        &s.run_id,
        &s.created_at,
        &s.updated_at,
    ]
}

/// `BEGIN` and the session's row (one round trip): keyed with `key`
/// after the key's lock and the old session's delete, else the
/// placeholder; its id.
pub(super) async fn begin(
    client: &Client,
    st: &Statements,
    key: Option<&Header>,
) -> Result<i64, tokio_postgres::Error> {
    let Some(s) = key else {
        let (_, row) = tokio::try_join!(
            client.batch_execute("BEGIN"),
            client.query_one(&st.begin, &[])
        )?;
        return Ok(row.get(0));
    };
    let key: [&(dyn ToSql + Sync); 3] = [&s.spec_id, &s.agent, &s.run_id];
    let old: [&(dyn ToSql + Sync); 4] = [&s.spec_id, &s.agent, &s.run_id, &0i64];
    let row = header_values(s);
    let (_, _, _, row) = tokio::try_join!(
        client.batch_execute("BEGIN"),
        client.execute(&st.lock, &key),
        client.execute(&st.delete, &old),
        client.query_one(&st.insert, &row)
    )?;
    Ok(row.get(0))
}

/// A batch of session `id`'s rows, one statement per table, pipelined.
pub(super) async fn pieces(
    client: &Client,
    st: &Statements,
    id: i64,
    p: &Pieces,
) -> Result<(), tokio_postgres::Error> {
    let t = &p.turns;
    let numbers: Vec<i64> = t.iter().map(|t| t.number).collect();
    let timestamps: Vec<Option<i64>> = t.iter().map(|t| t.timestamp).collect();
    let prompts: Vec<&str> = t.iter().map(|t| t.prompt.as_str()).collect();
    let responses: Vec<&str> = t.iter().map(|t| t.response.as_str()).collect();
    let tokens: Vec<Option<i64>> = t.iter().map(|t| t.token_count).collect();
    let latencies: Vec<Option<i64>> = t.iter().map(|t| t.latency_ms).collect();
    // Questions and violations, by their turn's number.
    let (mut q_turn, mut q_text, mut q_effort, mut q_conf, mut q_reasons) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut v_turn, mut v_pref, mut v_exp, mut v_act, mut v_sev, mut v_s, mut v_e) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    for t in t {
        for q in &t.questions {
            q_turn.push(t.number);
            q_text.push(q.text.as_str());
            q_effort.push(q.effort);
            q_conf.push(q.confidence);
            q_reasons.push(q.reasons.as_str());
        }
        for v in &t.violations {
            v_turn.push(t.number);
            v_pref.push(v.preference.as_str());
            v_exp.push(v.expected.as_str());
            v_act.push(v.actual.as_str());
            v_sev.push(v.severity);
            v_s.push(v.span_start);
            v_e.push(v.span_end);
        }
    }
    let c = &p.tool_calls;
    let c_pos: Vec<i64> = c.iter().map(|c| c.position).collect();
    let c_step: Vec<Option<i64>> = c.iter().map(|c| c.step).collect();
    let c_name: Vec<&str> = c.iter().map(|c| c.name.as_str()).collect();
    let c_params: Vec<&str> = c.iter().map(|c| c.params.as_str()).collect();
    let c_ok: Vec<bool> = c.iter().map(|c| c.ok).collect();
    let c_out: Vec<i64> = c.iter().map(|c| c.output_chars).collect();
    let g = &p.guidance;
    let g_pos: Vec<i64> = g.iter().map(|g| g.position).collect();
    let g_cls: Vec<&str> = g.iter().map(|g| g.classifier.as_str()).collect();
    let g_conf: Vec<f64> = g.iter().map(|g| g.confidence).collect();
    let g_reason: Vec<&str> = g.iter().map(|g| g.reason.as_str()).collect();
    let turns = async {
        if numbers.is_empty() {
            return Ok(0);
        }
        let values: [&(dyn ToSql + Sync); 19] = [
            &id,
            &numbers,
            &timestamps,
            &prompts,
            &responses,
            &tokens,
            &latencies,
            &q_turn,
            &q_text,
            &q_effort,
            &q_conf,
            &q_reasons,
            &v_turn,
            &v_pref,
            &v_exp,
            &v_act,
            &v_sev,
            &v_s,
            &v_e,
        ];
        client.execute(&st.turns, &values).await
    };
    let calls = async {
        match &st.tool_calls {
            Some(stmt) if !c_pos.is_empty() => {
                client
                    .execute(
                        stmt,
                        &[&id, &c_pos, &c_step, &c_name, &c_params, &c_ok, &c_out],
                    )
                    .await
            }
            _ => Ok(0),
        }
    };
    let guidance = async {
        match &st.guidance {
            Some(stmt) if !g_pos.is_empty() => {
                client
                    .execute(stmt, &[&id, &g_pos, &g_cls, &g_conf, &g_reason])
                    .await
            }
            _ => Ok(0),
        }
    };
    tokio::try_join!(turns, calls, guidance)?;
    Ok(())
}

/// The last batch, the key's lock, the old session's delete (all its
/// rows) and the key (unless the session began `keyed`), the score and
/// `COMMIT`, pipelined: one round trip.
pub(super) async fn finish(
    client: &Client,
    st: &Statements,
    f: &Finish<'_>,
) -> Result<(), tokio_postgres::Error> {
    let Finish {
        id,
        pieces: p,
        header: s,
        score,
        keyed,
    } = *f;
    let key: [&(dyn ToSql + Sync); 3] = [&s.spec_id, &s.agent, &s.run_id];
    let old: [&(dyn ToSql + Sync); 4] = [&s.spec_id, &s.agent, &s.run_id, &id];
    let mut row = header_values(s).to_vec();
    row.push(&id);
    let score = async {
        let Some(sc) = score else {
            return Ok(0);
        };
        let values: [&(dyn ToSql + Sync); 10] = [
            &id,
            &sc.r_prod,
            &sc.r_proact,
            &sc.r_pers,
            &sc.total,
            &sc.profile,
            &sc.technical_weight,
            &sc.interaction_weight,
            &s.created_at,
            &sc.final_score,
        ];
        // A schema before version 3 has no final_score column.
        let bound = if st.final_column { 10 } else { 9 };
        client.execute(&st.score, &values[..bound]).await
    };
    // A session written on a placeholder is keyed now.
    let rekey = async {
        if !keyed {
            tokio::try_join!(
                client.execute(&st.lock, &key),
                client.execute(&st.delete, &old),
                client.execute(&st.key, &row)
            )?;
        }
        Ok(())
    };
    tokio::try_join!(
        pieces(client, st, id, p),
        rekey,
        score,
        client.batch_execute("COMMIT")
    )?;
    Ok(())
}
