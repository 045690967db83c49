//! `tact report`: the telemetry of a trajectory database as terminal tables
//! (leaderboard, interaction scores over time, most violated preferences,
//! question effort distribution, guidance fires by classifier) and, with
//! `--out`, an HTML page of SVG charts drawn with plotters.

use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use plotters::prelude::*;
use tact::store::{EffortDistribution, LeaderboardRow, ScorePoint, Store};

/// Arguments of `tact report`.
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// The store written by `tact run`: a path, sqlite://PATH or a
    /// PostgreSQL URL; else TACT_DB, else `[store] url`, else tact.db.
    #[arg(long, value_name = "PATH|URL")]
    pub db: Option<String>,
    /// A TOML configuration whose `[store] url` names the store.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Also write `report.html` with SVG charts into this folder.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Everything the report shows, read once from the store.
struct Telemetry {
    leaderboard: Vec<LeaderboardRow>,
    over_time: Vec<(String, Vec<ScorePoint>)>,
    violations: Vec<(String, u64)>,
    effort: EffortDistribution,
    guidance: Vec<(String, u64)>,
}

fn read(store: &Store) -> Result<Telemetry> {
    let leaderboard = store.leaderboard(None)?;
    let mut over_time: Vec<(String, Vec<ScorePoint>)> = Vec::new();
    for row in &leaderboard {
        if !over_time.iter().any(|(a, _)| *a == row.agent) {
            over_time.push((row.agent.clone(), store.scores_over_time(&row.agent)?));
        }
    }
    Ok(Telemetry {
        leaderboard,
        over_time,
        violations: store.most_violated_preferences(10)?,
        effort: store.effort_distribution(None)?,
        guidance: store.guidance_fires_by_classifier()?,
    })
}

/// Runs `tact report`; `env` is the environment (`TACT_DB`).
pub fn run(
    args: &ReportArgs,
    env: &dyn Fn(&str) -> Option<String>,
    out: &mut impl Write,
) -> Result<()> {
    let config = match &args.config {
        Some(p) => Some(tact::job::Config::read(p)?),
        None => None,
    };
    let url = config
        .as_ref()
        .and_then(|c| c.store.as_ref())
        .and_then(|s| s.url.as_deref());
    let location = crate::store::location(args.db.as_deref(), env, url)?;
    let store = crate::store::open_for_reading(&location)?;
    // A query's SQLite error does not name the file: say which.
    let t = read(&store).with_context(|| format!("cannot read {location}"))?;
    out.write_all(render_text(&t).as_bytes())?;
    if let Some(dir) = &args.out {
        let path = write_html(&t, dir)?;
        writeln!(out, "\nHTML report: {}", path.display())?;
    }
    Ok(())
}

/// What each leaderboard figure is.
const LEADERBOARD_LEGEND: &str = concat!(
    "  final: the final consensus score tact run ranked by (technical weight x R_Prod\n",
    "    + interaction weight x the interaction score); '-' for runs ranked without one.\n",
    "  R: the reward under the run's profile (spec: R_Prod + R_Proact + R_Pers).\n",
    "  R_Prod: the task outcome in [0, 1]. R_Proact: how the agent asked (a bonus\n",
    "    for low-effort questions, penalties for medium and high effort). R_Pers: how\n",
    "    it followed the user's preferences (a bonus for compliance, penalties per\n",
    "    violation).",
);

fn render_text(t: &Telemetry) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Leaderboard per spec (means over each agent's runs, all stages)"
    );
    let _ = writeln!(
        s,
        "  {:<24} {:<16} {:>5} {:>7} {:>7} {:>7} {:>9} {:>7}",
        "spec", "agent", "runs", "final", "R", "R_Prod", "R_Proact", "R_Pers"
    );
    for r in &t.leaderboard {
        let final_score = r
            .mean_final
            .map_or_else(|| "-".to_owned(), |f| format!("{f:.3}"));
        let _ = writeln!(
            s,
            "  {:<24} {:<16} {:>5} {:>7} {:>7.3} {:>7.3} {:>+9.3} {:>+7.3}",
            r.spec_id,
            r.agent,
            r.runs,
            final_score,
            r.mean_total,
            r.mean_r_prod,
            r.mean_r_proact,
            r.mean_r_pers
        );
    }
    let _ = writeln!(s, "{LEADERBOARD_LEGEND}");
    let _ = writeln!(s, "\nInteraction score (R_proact + R_pers) over time");
    for (agent, points) in &t.over_time {
        let series: Vec<String> = points
            .iter()
            .map(|p| format!("{:+.2}", p.interaction))
            .collect();
        let _ = writeln!(s, "  {:<20} {}", agent, series.join(" "));
    }
    let total = t.effort.low + t.effort.medium + t.effort.high;
    let pct = |n: u64| {
        if total == 0 {
            0.0
        } else {
            100.0 * n as f64 / total as f64
        }
    };
    let _ = writeln!(s, "\nQuestion effort ({total} questions)");
    for (name, n) in [
        ("low", t.effort.low),
        ("medium", t.effort.medium),
        ("high", t.effort.high),
    ] {
        let _ = writeln!(s, "  {:<8} {:>5} {:>6.1}%", name, n, pct(n));
    }
    let _ = writeln!(s, "\nMost violated preferences");
    if t.violations.is_empty() {
        let _ = writeln!(s, "  none");
    }
    for (p, n) in &t.violations {
        let _ = writeln!(s, "  {p:<20} {n:>5}");
    }
    let _ = writeln!(s, "\nGuidance fires by classifier");
    if t.guidance.is_empty() {
        let _ = writeln!(s, "  none");
    }
    for (c, n) in &t.guidance {
        let _ = writeln!(s, "  {c:<26} {n:>5}");
    }
    s
}

type Svg = String;

fn bars(title: &str, data: &[(String, u64)]) -> Result<Svg> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (640, 320)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
        let max = data.iter().map(|(_, n)| *n).max().unwrap_or(1).max(1);
        // A segmented range a..b has one segment per value a..=b.
        let last = u32::try_from(data.len().saturating_sub(1)).unwrap_or(u32::MAX);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(60)
            .y_label_area_size(40)
            .build_cartesian_2d((0..last).into_segmented(), 0..max + max / 10 + 1)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let labels: Vec<String> = data.iter().map(|(l, _)| l.clone()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(data.len().max(1))
            .x_label_formatter(&|x| match x {
                SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .draw()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        chart
            .draw_series(
                Histogram::vertical(&chart)
                    .style(BLUE.mix(0.6).filled())
                    .margin(8)
                    .data(
                        data.iter()
                            .enumerate()
                            .map(|(i, (_, v))| (u32::try_from(i).unwrap_or(0), *v)),
                    ),
            )
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(svg)
}

fn lines(title: &str, series: &[(String, Vec<ScorePoint>)]) -> Result<Svg> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (640, 320)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
        let last = series
            .iter()
            .map(|(_, p)| p.len())
            .max()
            .unwrap_or(1)
            .saturating_sub(1)
            .max(1);
        let (mut lo, mut hi) = (f64::MAX, f64::MIN);
        for p in series.iter().flat_map(|(_, p)| p) {
            lo = lo.min(p.interaction);
            hi = hi.max(p.interaction);
        }
        if lo > hi {
            (lo, hi) = (-0.1, 0.1);
        }
        let pad = ((hi - lo) * 0.1).max(0.05);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0..last, (lo - pad)..(hi + pad))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        chart
            .configure_mesh()
            .x_desc("run")
            .y_desc("R_proact + R_pers")
            .x_labels(last + 1)
            .y_label_formatter(&|y| {
                let y = if y.abs() < 5e-4 { 0.0 } else { *y };
                format!("{y:.2}")
            })
            .draw()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        for (i, (agent, points)) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    points.iter().enumerate().map(|(x, p)| (x, p.interaction)),
                    color.stroke_width(2),
                ))
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .label(agent.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(svg)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Writes `report.html` into `dir` atomically (a temporary file renamed
/// into place), so a failure never leaves half a page.
fn write_html(t: &Telemetry, dir: &Path) -> Result<PathBuf> {
    let effort = vec![
        ("low".to_owned(), t.effort.low),
        ("medium".to_owned(), t.effort.medium),
        ("high".to_owned(), t.effort.high),
    ];
    let charts = [
        lines("Interaction score over time", &t.over_time)?,
        bars("Question effort", &effort)?,
        bars("Most violated preferences", &t.violations)?,
        bars("Guidance fires by classifier", &t.guidance)?,
    ];
    let mut html = String::from(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tact report</title>\n\
         <style>body{font-family:sans-serif;margin:2em;max-width:60em}pre{background:#f6f6f6;padding:1em}</style>\n\
         </head><body>\n<h1>tact report</h1>\n",
    );
    for svg in &charts {
        html.push_str("<figure>");
        html.push_str(svg);
        html.push_str("</figure>\n");
    }
    let _ = write!(
        html,
        "<h2>Tables</h2>\n<pre>{}</pre>\n</body></html>\n",
        escape(&render_text(t))
    );
    // Names from the store are input: no raw control character in the page.
    let html = tact_types::excerpt::escape_controls(&html).into_owned();
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let path = dir.join("report.html");
    let tmp = dir.join(".report.html.tmp");
    // A FIFO left at the temporary name would block the write: it goes.
    if std::fs::symlink_metadata(&tmp).is_ok_and(|m| !m.is_file()) {
        std::fs::remove_file(&tmp).with_context(|| format!("cannot replace {}", tmp.display()))?;
    }
    std::fs::write(&tmp, html).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}
