//! Scene reports: console tables, `results.json`, `table.md`, SVG plots, and the README
//! benchmark table.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use plotters::prelude::*;
use serde::{Deserialize, Serialize};

/// One data series of a plot.
#[derive(Serialize, Deserialize, Clone)]
pub(crate) struct Series {
    pub(crate) name: String,
    pub(crate) x: Vec<f64>,
    pub(crate) y: Vec<f64>,
    /// Spread of repeated measurements at each `x` (lowest, highest), drawn as a shaded band
    /// around the line; `None` when each point was measured once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) band: Option<(Vec<f64>, Vec<f64>)>,
}

/// A plot written as SVG: lines over a numeric `x`, or grouped bars over named categories.
#[derive(Serialize, Deserialize, Clone)]
pub(crate) struct Plot {
    pub(crate) file: String,
    pub(crate) title: String,
    pub(crate) x_label: String,
    pub(crate) y_label: String,
    pub(crate) log_y: bool,
    /// Targets drawn as dashed horizontal lines with their label (same unit as `y`).
    #[serde(default)]
    pub(crate) targets: Vec<TargetLine>,
    /// Names of categorical workloads: when not empty, series `x` values are 1-based indices
    /// into it and the plot draws labelled bars instead of lines.
    #[serde(default)]
    pub(crate) categories: Vec<String>,
    pub(crate) series: Vec<Series>,
}

/// A target drawn across a plot.
#[derive(Serialize, Deserialize, Clone)]
pub(crate) struct TargetLine {
    pub(crate) label: String,
    pub(crate) y: f64,
}

/// A scene that did not run, and why (e.g. its real data is absent).
#[derive(Serialize, Deserialize)]
pub(crate) struct Skipped {
    pub(crate) name: String,
    pub(crate) reason: String,
}

/// A scene that started and failed, with its error (the other scenes still run).
#[derive(Serialize, Deserialize, Clone)]
pub(crate) struct Failed {
    pub(crate) name: String,
    pub(crate) error: String,
    /// Seconds the scene ran before it failed.
    pub(crate) seconds: f64,
}

/// What a scene measured, in the paper's own columns.
#[derive(Serialize, Deserialize)]
pub(crate) struct SceneReport {
    pub(crate) name: String,
    pub(crate) paper: String,
    pub(crate) description: String,
    pub(crate) columns: Vec<String>,
    pub(crate) rows: Vec<Vec<String>>,
    /// One sentence for the README table.
    pub(crate) headline: String,
    /// Machine-readable key numbers.
    pub(crate) summary: serde_json::Value,
    pub(crate) plots: Vec<Plot>,
}

impl SceneReport {
    /// The table as aligned plain text.
    pub(crate) fn to_text(&self) -> String {
        let mut widths: Vec<usize> = self.columns.iter().map(|c| c.chars().count()).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: &[String]| {
            cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!("{c:>w$}"))
                .collect::<Vec<_>>()
                .join("  ")
        };
        let mut s = format!(
            "== {} ({}) ==\n{}\n",
            self.name, self.paper, self.description
        );
        let _ = writeln!(s, "{}", line(&self.columns));
        for row in &self.rows {
            let _ = writeln!(s, "{}", line(row));
        }
        if !self.headline.is_empty() {
            let _ = writeln!(s, "{}", self.headline);
        }
        s
    }

    /// The table as Markdown.
    pub(crate) fn to_markdown(&self) -> String {
        let mut s = format!(
            "#### {} ({})\n\n{}\n\n",
            self.name, self.paper, self.description
        );
        let _ = writeln!(s, "| {} |", self.columns.join(" | "));
        let _ = writeln!(
            s,
            "|{}|",
            self.columns
                .iter()
                .map(|_| "---:")
                .collect::<Vec<_>>()
                .join("|")
        );
        for row in &self.rows {
            let _ = writeln!(s, "| {} |", row.join(" | "));
        }
        if !self.headline.is_empty() {
            let _ = writeln!(s, "\n{}", self.headline);
        }
        s
    }
}

/// Writes `results.json`, `table.md` and the plots into `out`; skipped and failed scenes are
/// listed in both with their reason or error. A plot that cannot be drawn does not stop the
/// others: its error is returned in the list (empty when every plot was written).
pub(crate) fn write_all(
    out: &Path,
    reports: &[SceneReport],
    skipped: &[Skipped],
    failed: &[Failed],
    meta: serde_json::Value,
) -> Result<Vec<String>> {
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let json = serde_json::json!({
        "meta": meta, "scenes": reports, "skipped": skipped, "failed": failed,
    });
    fs::write(
        out.join("results.json"),
        serde_json::to_string_pretty(&json)?,
    )?;
    let mut md = String::new();
    if !failed.is_empty() {
        md.push_str("#### Failed scenes\n\n");
        for f in failed {
            let _ = writeln!(
                md,
                "- {}: FAILED after {:.1} s: {}",
                f.name, f.seconds, f.error
            );
        }
        md.push('\n');
    }
    md.push_str(
        &reports
            .iter()
            .map(SceneReport::to_markdown)
            .collect::<Vec<_>>()
            .join("\n"),
    );
    if !skipped.is_empty() {
        md.push_str("\n#### Skipped scenes\n\n");
        for s in skipped {
            let _ = writeln!(md, "- {}: {}", s.name, s.reason);
        }
    }
    fs::write(out.join("table.md"), &md)?;
    let mut plot_errors = Vec::new();
    for r in reports {
        for p in &r.plots {
            if let Err(e) = plot_svg(&out.join(&p.file), p) {
                plot_errors.push(format!("{}: plot {}: {e:#}", r.name, p.file));
            }
        }
    }
    Ok(plot_errors)
}

/// The first line of the README benchmark section: what ran, when, where, under which load.
pub(crate) fn readme_meta_line(meta: &serde_json::Value) -> String {
    let cpus = meta["cpus"].as_u64().unwrap_or(1);
    let start = meta["load_average"]["start"].as_f64();
    let end = meta["load_average"]["end"].as_f64();
    let load = match (start, end) {
        (Some(a), Some(b)) => format!("; load average {a:.1} at the start, {b:.1} at the end"),
        _ => String::new(),
    };
    let minutes = meta["seconds"]
        .as_f64()
        .map_or_else(String::new, |s| format!(", {:.0} min", s / 60.0));
    format!(
        "Measured by `cargo xtask bench{}` on {} at commit {} ({cpus} CPUs{load}{minutes}{}; single-threaded except the 2-thr columns).",
        if meta["quick"].as_bool() == Some(true) {
            " --quick"
        } else {
            ""
        },
        meta["date"].as_str().unwrap_or("an unknown date"),
        meta["commit"]
            .as_str()
            .map_or("unknown", |c| c.get(..10).unwrap_or(c)),
        if [start, end].into_iter().flatten().any(|l| l > cpus as f64) {
            ": the machine was shared with other jobs, so absolute times are inflated and ratios are the robust numbers"
        } else {
            ""
        },
    )
}

/// The README benchmark section: the meta line, one summary row per scene (its headline:
/// the numbers against the targets), skipped scenes, then every scene's full table folded in
/// a `<details>` block.
pub(crate) fn readme_section(
    reports: &[SceneReport],
    skipped: &[Skipped],
    meta_line: &str,
) -> String {
    let rows: Vec<String> = reports
        .iter()
        .map(summary_row)
        .chain(skipped.iter().map(skipped_row))
        .collect();
    let details: Vec<String> = reports.iter().map(details_block).collect();
    section_of(meta_line, &rows, &details)
}

/// A scene's row of the README summary table.
fn summary_row(r: &SceneReport) -> String {
    let result = if r.headline.is_empty() {
        "see its table below".to_string()
    } else {
        r.headline.replace('|', "/").replace('\n', " ")
    };
    format!("| `{}` | {} | {} |", r.name, r.paper, result)
}

/// A skipped scene's row of the README summary table.
fn skipped_row(k: &Skipped) -> String {
    format!(
        "| `{}` | — | skipped: {} |",
        k.name,
        k.reason.replace('|', "/")
    )
}

/// A scene's full table folded in a `<details>` block.
fn details_block(r: &SceneReport) -> String {
    format!(
        "<details><summary><code>{}</code>: full table</summary>\n\n{}\n</details>",
        r.name,
        r.to_markdown().trim_end()
    )
}

const TABLE_HEAD: &str = "| scene | paper | result |";
const PLOTS_NOTE: &str = " Full tables and SVG plots:";

/// The section from its meta line, summary rows and details blocks.
fn section_of(meta_line: &str, rows: &[String], details: &[String]) -> String {
    let mut s = format!(
        "{meta_line}{PLOTS_NOTE} `target/bench-report/` (`table.md`, `results.json`, one plot per scene); the columns are explained in [benchmarks.md](benchmarks.md).\n\n"
    );
    let _ = writeln!(s, "{TABLE_HEAD}\n|---|---|---|");
    for r in rows {
        let _ = writeln!(s, "{r}");
    }
    s.push('\n');
    for d in details {
        let _ = writeln!(s, "{d}\n");
    }
    s
}

/// The scenes of an existing README section, as written by [`section_of`]: per meta
/// paragraph its scene names (`None`: a single run's paragraph, naming no scene) and its
/// text; per scene its summary row and details block, in the section's order.
#[derive(Debug, Default)]
struct OldSection {
    metas: Vec<(Option<Vec<String>>, String)>,
    rows: Vec<(String, String)>,
    details: Vec<(String, String)>,
}

/// Parses a section written by [`section_of`]; `None` when it has no summary table.
fn parse_section(body: &str) -> Option<OldSection> {
    let head = body.find(TABLE_HEAD)?;
    let mut meta = body[..head].trim_end();
    if let Some(k) = meta.rfind(PLOTS_NOTE) {
        meta = &meta[..k];
    }
    let mut old = OldSection::default();
    for p in meta.split("\n\n").map(str::trim).filter(|p| !p.is_empty()) {
        let named = p
            .starts_with('`')
            .then(|| p.find("`: "))
            .flatten()
            .map(|k| (&p[..=k], &p[k + 3..]));
        old.metas.push(match named {
            Some((names, rest)) => (
                Some(
                    names
                        .split(", ")
                        .map(|n| n.trim_matches('`').to_string())
                        .collect(),
                ),
                rest.to_string(),
            ),
            None => (None, p.to_string()),
        });
    }
    let table = &body[head..];
    for line in table.lines().filter(|l| l.starts_with("| `")) {
        if let Some(name) = line[3..].split('`').next() {
            old.rows.push((name.to_string(), line.to_string()));
        }
    }
    const OPEN: &str = "<details><summary><code>";
    const CLOSE: &str = "</details>";
    let mut rest = table;
    while let Some(a) = rest.find(OPEN) {
        let block = &rest[a..];
        let Some(end) = block.find(CLOSE) else {
            break;
        };
        let name = block[OPEN.len()..]
            .split("</code>")
            .next()
            .unwrap_or_default();
        old.details
            .push((name.to_string(), block[..end + CLOSE.len()].to_string()));
        rest = &block[end + CLOSE.len()..];
    }
    Some(old)
}

/// The new section for `reports` and `skipped`, keeping from the `old` section every scene
/// that this run did not touch (a run of some scenes only: `--scene`): its summary row, its
/// details block and its line of the meta paragraphs (the run it came from). Scenes keep
/// the old order; new ones come after.
fn merged_section(
    old: &str,
    reports: &[SceneReport],
    skipped: &[Skipped],
    meta_line: &str,
) -> String {
    let fresh = readme_section(reports, skipped, meta_line);
    let Some(old) = parse_section(old) else {
        return fresh;
    };
    let touched: Vec<&str> = reports
        .iter()
        .map(|r| r.name.as_str())
        .chain(skipped.iter().map(|k| k.name.as_str()))
        .collect();
    let kept: Vec<&str> = old
        .rows
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !touched.contains(n))
        .collect();
    if kept.is_empty() {
        return fresh;
    }
    let mut metas: Vec<String> = Vec::new();
    for (names, text) in &old.metas {
        let names: Vec<&str> = match names {
            Some(ns) => ns
                .iter()
                .map(String::as_str)
                .filter(|n| kept.contains(n))
                .collect(),
            None => kept.clone(),
        };
        if !names.is_empty() {
            let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
            metas.push(format!("{}: {text}", list.join(", ")));
        }
    }
    if meta_line.starts_with('`') {
        metas.push(meta_line.to_string());
    } else {
        let list: Vec<String> = touched.iter().map(|n| format!("`{n}`")).collect();
        metas.push(format!("{}: {meta_line}", list.join(", ")));
    }
    let row_of = |name: &str| -> Option<String> {
        if let Some(r) = reports.iter().find(|r| r.name == name) {
            return Some(summary_row(r));
        }
        if let Some(k) = skipped.iter().find(|k| k.name == name) {
            return Some(skipped_row(k));
        }
        old.rows
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, l)| l.clone())
    };
    let detail_of = |name: &str| -> Option<String> {
        if let Some(r) = reports.iter().find(|r| r.name == name) {
            return Some(details_block(r));
        }
        if touched.contains(&name) {
            return None;
        }
        old.details
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.clone())
    };
    let mut order: Vec<&str> = old.rows.iter().map(|(n, _)| n.as_str()).collect();
    for n in &touched {
        if !order.contains(n) {
            order.push(n);
        }
    }
    let rows: Vec<String> = order.iter().filter_map(|n| row_of(n)).collect();
    let details: Vec<String> = order.iter().filter_map(|n| detail_of(n)).collect();
    section_of(&metas.join("\n\n"), &rows, &details)
}

/// Rewrites the README section between `<!-- bench:start -->` and `<!-- bench:end -->`:
/// the scenes of this run replace theirs, and scenes it did not run keep their rows
/// ([`merged_section`]; remove a scene that no longer exists by hand).
pub(crate) fn update_readme(
    readme: &Path,
    reports: &[SceneReport],
    skipped: &[Skipped],
    meta_line: &str,
) -> Result<()> {
    const START: &str = "<!-- bench:start -->";
    const END: &str = "<!-- bench:end -->";
    let text =
        fs::read_to_string(readme).with_context(|| format!("reading {}", readme.display()))?;
    let (Some(a), Some(b)) = (text.find(START), text.find(END)) else {
        anyhow::bail!("{} has no {START} ... {END} markers", readme.display());
    };
    if b < a {
        anyhow::bail!("{}: {END} comes before {START}", readme.display());
    }
    let old = &text[a + START.len()..b];
    let body = relative_paths(
        &merged_section(old, reports, skipped, meta_line),
        readme,
        &crate::workspace_root(),
    );
    let new = format!("{}{START}\n{body}{}", &text[..a], &text[b..]);
    fs::write(readme, new)?;
    Ok(())
}

/// `text` with the absolute path of the folder above the README's workspace (where the
/// scenes find `shared/data`) written as `../`, so that the README reads the same on every
/// machine.
fn relative_paths(text: &str, doc: &Path, workspace: &Path) -> String {
    // from a document `depth` folders below the workspace, the folder above the workspace
    // is `depth + 1` levels up
    let depth = doc
        .parent()
        .and_then(|d| d.strip_prefix(workspace).ok())
        .map_or(0, |rel| rel.components().count());
    match workspace.join("..").canonicalize() {
        Ok(p) if p.parent().is_some() => {
            text.replace(&format!("{}/", p.display()), &"../".repeat(depth + 1))
        }
        _ => text.to_string(),
    }
}

/// `cargo xtask plots`: renders the SVG plots of a saved `results.json` again into `out`
/// (after a change to the plot style, without re-running the scenes).
pub(crate) fn plots_from_results(results: &Path, out: &Path) -> Result<usize> {
    #[derive(Deserialize)]
    struct Saved {
        scenes: Vec<SceneReport>,
    }
    let text =
        fs::read_to_string(results).with_context(|| format!("reading {}", results.display()))?;
    let saved: Saved = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a bench report", results.display()))?;
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut n = 0;
    for r in &saved.scenes {
        for p in &r.plots {
            // plot names come from the file: keep them inside `out`
            let name = Path::new(&p.file)
                .file_name()
                .with_context(|| format!("plot file name {:?}", p.file))?;
            plot_svg(&out.join(name), p)?;
            n += 1;
        }
    }
    Ok(n)
}

/// `cargo xtask results`: rewrites the generated section of `docs/results.md` from saved
/// `results.json` files (so a long full run need not be repeated to refresh it). With several files,
/// a later file's scene replaces an earlier one's of the same name (e.g. a full run, then a
/// re-run of the scenes a change made faster), and the section names the run behind each scene.
pub(crate) fn readme_from_results(readme: &Path, results: &[std::path::PathBuf]) -> Result<()> {
    #[derive(Deserialize)]
    struct Saved {
        meta: serde_json::Value,
        scenes: Vec<SceneReport>,
        #[serde(default)]
        skipped: Vec<Skipped>,
    }
    let mut runs = Vec::with_capacity(results.len());
    for path in results {
        let text =
            fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let saved: Saved = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a bench report", path.display()))?;
        if saved.scenes.is_empty() {
            anyhow::bail!("{} holds no scene", path.display());
        }
        runs.push(saved);
    }
    let Some(last) = runs.len().checked_sub(1) else {
        anyhow::bail!("no results.json given");
    };
    if last == 0 {
        let run = runs.swap_remove(0);
        return update_readme(
            readme,
            &run.scenes,
            &run.skipped,
            &readme_meta_line(&run.meta),
        );
    }
    // Scenes in first-appearance order; each from the last run that has it.
    let mut scenes: Vec<(usize, SceneReport)> = Vec::new();
    let mut skipped: Vec<Skipped> = Vec::new();
    for (k, run) in runs.iter_mut().enumerate() {
        for sc in run.scenes.drain(..) {
            skipped.retain(|x| x.name != sc.name);
            match scenes.iter_mut().find(|(_, s)| s.name == sc.name) {
                Some(slot) => *slot = (k, sc),
                None => scenes.push((k, sc)),
            }
        }
        for sk in run.skipped.drain(..) {
            scenes.retain(|(_, s)| s.name != sk.name);
            skipped.retain(|x| x.name != sk.name);
            skipped.push(sk);
        }
    }
    let mut meta_line = String::new();
    for (k, run) in runs.iter().enumerate() {
        let names: Vec<String> = scenes
            .iter()
            .filter(|(from, _)| *from == k)
            .map(|(_, s)| format!("`{}`", s.name))
            .collect();
        if names.is_empty() {
            continue;
        }
        if !meta_line.is_empty() {
            meta_line.push_str("\n\n");
        }
        let _ = write!(
            meta_line,
            "{}: {}",
            names.join(", "),
            readme_meta_line(&run.meta)
        );
    }
    let scenes: Vec<SceneReport> = scenes.into_iter().map(|(_, s)| s).collect();
    update_readme(readme, &scenes, &skipped, &meta_line)
}

/// Superscript digits for `10^k` labels.
fn superscript(k: i32) -> String {
    k.to_string()
        .chars()
        .map(|c| match c {
            '-' => '⁻',
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            _ => '⁹',
        })
        .collect()
}

/// A tick label: integers as integers, powers of ten as `10ᵏ` when large or small, other
/// values with at most three significant digits (`2.5e6` style beyond 10⁴).
fn tick_label(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    let k = a.log10().round();
    let is_pow10 = ((a / 10f64.powf(k)) - 1.0).abs() < 1e-9;
    if is_pow10 && !(-2.0..=3.0).contains(&k) {
        let sign = if v < 0.0 { "-" } else { "" };
        return format!("{sign}10{}", superscript(k as i32));
    }
    if !(1e-3..1e4).contains(&a) {
        let s = format!("{v:.1e}");
        return s.replace(".0e", "e");
    }
    if (v - v.round()).abs() < 1e-9 * a.max(1.0) {
        return format!("{}", v.round() as i64);
    }
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Series with more points than this are drawn as thin lines without markers.
const DENSE_SERIES: usize = 400;

/// The powers of ten in `[lo, hi]`, as exponents.
fn decades(lo: f64, hi: f64) -> Vec<i32> {
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        return Vec::new();
    }
    let (a, b) = (lo.log10().ceil() as i32, hi.log10().floor() as i32);
    (a..=b).collect()
}

fn plot_svg(path: &Path, p: &Plot) -> Result<()> {
    // the legend gets its own column to the right of the chart, never over the data, as wide
    // as its longest label (about 7.5 px per character at 14 px)
    let longest = p
        .series
        .iter()
        .map(|s| s.name.chars().count())
        .chain(p.targets.iter().map(|t| t.label.chars().count()))
        .chain(std::iter::once("lowest to highest repeat".len()))
        .max()
        .unwrap_or(0);
    let legend_width = u32::try_from(48 + longest * 15 / 2)
        .unwrap_or(600)
        .clamp(220, 600);
    let categorical = !p.categories.is_empty();
    // categorical labels are written under the axis, turned: room for the longest
    let x_label_area = if categorical {
        let longest_cat = p
            .categories
            .iter()
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(0);
        u32::try_from(30 + longest_cat * 8)
            .unwrap_or(320)
            .clamp(40, 320)
    } else {
        40
    };
    let root = SVGBackend::new(path, (640 + legend_width, 440 + x_label_area)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let (chart_area, legend_area) = root.split_horizontally(640);
    let xs = p.series.iter().flat_map(|s| s.x.iter().copied());
    let ys = p
        .series
        .iter()
        .flat_map(|s| {
            let band = s.band.iter().flat_map(|(lo, hi)| lo.iter().chain(hi));
            s.y.iter().chain(band).copied()
        })
        .chain(p.targets.iter().map(|t| t.y))
        .filter(|y| y.is_finite() && (*y > 0.0 || !p.log_y));
    let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (y0, y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
        (a.min(y), b.max(y))
    });
    if !(x0.is_finite() && y0.is_finite()) {
        return Ok(());
    }
    if categorical {
        (x0, x1) = (0.5, p.categories.len() as f64 + 0.5);
    } else if x1 - x0 < 1e-12 * x0.abs().max(1.0) {
        // a single x (e.g. one step in quick mode): centre it in a unit-wide range
        (x0, x1) = (x0 - 1.0, x1 + 1.0);
    } else {
        let pad = (x1 - x0) * 0.02;
        (x0, x1) = (x0 - pad, x1 + pad);
    }
    let integer_x = p
        .series
        .iter()
        .flat_map(|s| s.x.iter())
        .all(|x| (x - x.round()).abs() < 1e-9);
    // integer x (links, frames, sequences): one tick per integer when few, so that every
    // tick has a label; categories: one tick per category
    let x_ticks = if categorical {
        p.categories.len() + 1
    } else if integer_x {
        ((x1 - x0).floor() as usize + 1).clamp(2, 12)
    } else {
        10
    };
    let (ylo, yhi) = if p.log_y {
        (y0 * 0.8, y1 * 1.25)
    } else {
        (y0.min(0.0), y1 * 1.1)
    };
    // a log axis spanning a decade or more: a labelled tick at every decade
    let log_decades = if p.log_y {
        decades(ylo, yhi)
    } else {
        Vec::new()
    };
    let decade_points: Vec<f64> = log_decades.iter().map(|&k| 10f64.powi(k)).collect();
    let colors = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    let draw_err = |e| anyhow::anyhow!("plotting {}: {e:?}", path.display());
    let mut builder = ChartBuilder::on(&chart_area);
    builder
        .caption(&p.title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(x_label_area)
        .y_label_area_size(70);
    let x_fmt = |x: &f64| {
        if categorical {
            let k = x.round();
            if (x - k).abs() < 1e-9 && k >= 1.0 {
                // drawn below the axis after the chart (turned, starting at the axis)
                let _ = k;
                String::new()
            } else {
                String::new()
            }
        } else if integer_x {
            if (x - x.round()).abs() < 1e-9 {
                format!("{}", x.round() as i64)
            } else {
                String::new()
            }
        } else {
            tick_label(*x)
        }
    };
    let y_fmt = |y: &f64| tick_label(*y);
    let n_series = p.series.len().max(1) as f64;
    macro_rules! draw {
        ($chart:expr, $floor:expr) => {{
            let mut chart = $chart;
            let mut mesh = chart.configure_mesh();
            mesh.x_desc(&p.x_label)
                .y_desc(&p.y_label)
                .x_labels(x_ticks)
                .x_label_formatter(&x_fmt)
                .y_label_formatter(&y_fmt);
            if categorical {
                mesh.disable_x_mesh();
            }
            mesh.draw().map_err(draw_err)?;
            // bands first, so that every line stays visible on top of them
            for (i, s) in p.series.iter().enumerate() {
                let Some((lo, hi)) = &s.band else { continue };
                if categorical {
                    break;
                }
                let c = colors[i % colors.len()];
                let outline: Vec<(f64, f64)> =
                    s.x.iter()
                        .copied()
                        .zip(lo.iter().copied())
                        .chain(s.x.iter().copied().zip(hi.iter().copied()).rev())
                        .filter(|(_, y)| y.is_finite() && (*y > 0.0 || !p.log_y))
                        .collect();
                if s.x.len() == 1 {
                    // one x: a vertical bar from the lowest to the highest repeat
                    chart
                        .draw_series(std::iter::once(PathElement::new(
                            outline,
                            c.mix(0.35).stroke_width(8),
                        )))
                        .map_err(draw_err)?;
                } else {
                    chart
                        .draw_series(std::iter::once(Polygon::new(outline, c.mix(0.18).filled())))
                        .map_err(draw_err)?;
                }
            }
            for (i, s) in p.series.iter().enumerate() {
                let c = colors[i % colors.len()];
                let pts = || {
                    s.x.iter()
                        .copied()
                        .zip(s.y.iter().copied())
                        .filter(|(_, y)| y.is_finite() && (*y > 0.0 || !p.log_y))
                };
                if categorical {
                    // grouped bars: series i takes its slot of each category's width
                    let w = 0.8 / n_series;
                    let left = -0.4 + w * i as f64;
                    chart
                        .draw_series(pts().map(|(x, y)| {
                            Rectangle::new(
                                [(x + left, $floor), (x + left + w * 0.9, y)],
                                c.filled(),
                            )
                        }))
                        .map_err(draw_err)?;
                } else if s.x.len() > DENSE_SERIES {
                    // thousands of points (one per step or edge): thin lines, no markers,
                    // half transparent so that overlapping series stay readable
                    chart
                        .draw_series(LineSeries::new(pts(), c.mix(0.6).stroke_width(1)))
                        .map_err(draw_err)?;
                } else {
                    // fewer than 3 points are no trend: points only
                    if s.x.len() >= 3 {
                        chart
                            .draw_series(LineSeries::new(pts(), c.stroke_width(2)))
                            .map_err(draw_err)?;
                    }
                    chart
                        .draw_series(pts().map(|xy| Circle::new(xy, 4, c.filled())))
                        .map_err(draw_err)?;
                }
            }
            // category names under their bars, turned to read downwards from the axis
            for (k, name) in p.categories.iter().enumerate() {
                let (px, py) = chart.backend_coord(&((k + 1) as f64, $floor));
                root.draw(&Text::new(
                    name.clone(),
                    (px - 6, py + 6),
                    ("sans-serif", 12)
                        .into_font()
                        .transform(FontTransform::Rotate90),
                ))
                .map_err(draw_err)?;
            }
            for t in &p.targets {
                chart
                    .draw_series(DashedLineSeries::new(
                        [(x0, t.y), (x1, t.y)],
                        8,
                        5,
                        BLACK.stroke_width(2),
                    ))
                    .map_err(draw_err)?;
            }
        }};
    }
    if p.log_y && decade_points.len() >= 2 {
        // a tick and a label at every decade, nothing between
        draw!(
            builder
                .build_cartesian_2d(
                    x0..x1,
                    (ylo..yhi)
                        .log_scale()
                        .with_key_points(decade_points.clone())
                )
                .map_err(draw_err)?,
            ylo
        );
    } else if p.log_y {
        draw!(
            builder
                .build_cartesian_2d(x0..x1, (ylo..yhi).log_scale())
                .map_err(draw_err)?,
            ylo
        );
    } else {
        draw!(
            builder
                .build_cartesian_2d(x0..x1, ylo..yhi)
                .map_err(draw_err)?,
            ylo.max(0.0).min(yhi)
        );
    }
    let mut y = 60;
    for (i, s) in p.series.iter().enumerate() {
        let c = colors[i % colors.len()];
        if categorical {
            legend_area
                .draw(&Rectangle::new([(8, y - 6), (32, y + 6)], c.filled()))
                .map_err(draw_err)?;
        } else {
            if s.x.len() >= 3 {
                legend_area
                    .draw(&PathElement::new(vec![(8, y), (32, y)], c.stroke_width(2)))
                    .map_err(draw_err)?;
            }
            legend_area
                .draw(&Circle::new((20, y), 4, c.filled()))
                .map_err(draw_err)?;
        }
        legend_area
            .draw(&Text::new(s.name.clone(), (38, y - 7), ("sans-serif", 14)))
            .map_err(draw_err)?;
        y += 24;
    }
    for t in &p.targets {
        legend_area
            .draw(&PathElement::new(
                vec![(8, y), (16, y)],
                BLACK.stroke_width(2),
            ))
            .map_err(draw_err)?;
        legend_area
            .draw(&PathElement::new(
                vec![(22, y), (32, y)],
                BLACK.stroke_width(2),
            ))
            .map_err(draw_err)?;
        legend_area
            .draw(&Text::new(t.label.clone(), (38, y - 7), ("sans-serif", 14)))
            .map_err(draw_err)?;
        y += 24;
    }
    if p.series.iter().any(|s| s.band.is_some()) && !categorical {
        legend_area
            .draw(&Rectangle::new(
                [(8, y - 6), (32, y + 6)],
                BLACK.mix(0.18).filled(),
            ))
            .map_err(draw_err)?;
        legend_area
            .draw(&Text::new(
                "lowest to highest repeat",
                (38, y - 7),
                ("sans-serif", 14),
            ))
            .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}

#[cfg(test)]
mod tests;
