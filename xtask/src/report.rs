//! Scene reports: console tables, `results.json`, `table.md`, SVG plots, and the README
//! benchmark table.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use anyhow::{Context, Result};
use plotters::prelude::*;
use serde::Serialize;

/// One data series of a plot.
#[derive(Serialize, Clone)]
pub(crate) struct Series {
    pub(crate) name: String,
    pub(crate) x: Vec<f64>,
    pub(crate) y: Vec<f64>,
}

/// A line plot written as SVG.
#[derive(Serialize, Clone)]
pub(crate) struct Plot {
    pub(crate) file: String,
    pub(crate) title: String,
    pub(crate) x_label: String,
    pub(crate) y_label: String,
    pub(crate) log_y: bool,
    pub(crate) series: Vec<Series>,
}

/// What a scene measured, in the paper's own columns.
#[derive(Serialize)]
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

/// Writes `results.json`, `table.md` and the plots into `out`.
pub(crate) fn write_all(
    out: &Path,
    reports: &[SceneReport],
    meta: serde_json::Value,
) -> Result<()> {
    fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let json = serde_json::json!({ "meta": meta, "scenes": reports });
    fs::write(
        out.join("results.json"),
        serde_json::to_string_pretty(&json)?,
    )?;
    let md: String = reports
        .iter()
        .map(SceneReport::to_markdown)
        .collect::<Vec<_>>()
        .join("\n");
    fs::write(out.join("table.md"), &md)?;
    for r in reports {
        for p in &r.plots {
            plot_svg(&out.join(&p.file), p)?;
        }
    }
    Ok(())
}

/// Rewrites the README section between `<!-- bench:start -->` and `<!-- bench:end -->`.
pub(crate) fn update_readme(readme: &Path, reports: &[SceneReport], meta_line: &str) -> Result<()> {
    const START: &str = "<!-- bench:start -->";
    const END: &str = "<!-- bench:end -->";
    let text =
        fs::read_to_string(readme).with_context(|| format!("reading {}", readme.display()))?;
    let (Some(a), Some(b)) = (text.find(START), text.find(END)) else {
        anyhow::bail!("{} has no {START} ... {END} markers", readme.display());
    };
    let body: String = reports
        .iter()
        .map(SceneReport::to_markdown)
        .collect::<Vec<_>>()
        .join("\n");
    let new = format!(
        "{}{START}\n{meta_line}\n\n{body}\n{}",
        &text[..a],
        &text[b..]
    );
    fs::write(readme, new)?;
    Ok(())
}

fn plot_svg(path: &Path, p: &Plot) -> Result<()> {
    let root = SVGBackend::new(path, (720, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let xs = p.series.iter().flat_map(|s| s.x.iter().copied());
    let ys = p
        .series
        .iter()
        .flat_map(|s| s.y.iter().copied())
        .filter(|y| y.is_finite() && *y > 0.0);
    let (x0, x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    let (y0, y1) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
        (a.min(y), b.max(y))
    });
    if !(x0.is_finite() && y0.is_finite()) {
        return Ok(());
    }
    let colors = [RED, BLUE, GREEN, MAGENTA, CYAN, BLACK];
    let draw_err = |e| anyhow::anyhow!("plotting {}: {e:?}", path.display());
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(&p.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60);
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(&p.x_label)
                .y_desc(&p.y_label)
                .draw()
                .map_err(draw_err)?;
            for (i, s) in p.series.iter().enumerate() {
                let c = colors[i % colors.len()];
                chart
                    .draw_series(LineSeries::new(
                        s.x.iter().copied().zip(s.y.iter().copied()),
                        c.stroke_width(2),
                    ))
                    .map_err(draw_err)?
                    .label(s.name.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c));
            }
            chart
                .configure_series_labels()
                .border_style(BLACK)
                .background_style(WHITE)
                .draw()
                .map_err(draw_err)?;
        }};
    }
    if p.log_y {
        draw!(
            builder
                .build_cartesian_2d(x0..x1, (y0 * 0.8..y1 * 1.25).log_scale())
                .map_err(draw_err)?
        );
    } else {
        draw!(
            builder
                .build_cartesian_2d(x0..x1, y0.min(0.0)..y1 * 1.1)
                .map_err(draw_err)?
        );
    }
    root.present().map_err(draw_err)?;
    Ok(())
}
