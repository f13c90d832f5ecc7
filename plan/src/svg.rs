//! A picture of one iteration's memory: resident bytes over the op sequence.
//!
//! Stacked areas show the saved activations on the device, split by what
//! happened to them (kept, or swapped out and back); lines show all the
//! float tensor bytes the iteration added to the device (what the budget
//! holds), the saved bytes keeping everything would hold (keep-all, for
//! reference) and the saved bytes in host memory; markers show where
//! backward starts and the budget.

use std::fmt::Write;

use crate::human_bytes;
use crate::memory::{recorded, resident_timeline};
use crate::plan::Decision;
use crate::profile::{Profile, TensorProfile};

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 50.0;

/// An SVG of `profile`'s memory timeline; `budget` draws a line.
pub fn timeline_svg(profile: &Profile, budget: Option<u64>) -> String {
    let n = profile.op_count.max(1);
    let (swapped, kept): (Vec<&TensorProfile>, Vec<&TensorProfile>) = profile
        .saved_tensors()
        .partition(|t| !t.offloaded_at.is_empty());
    let kept_bytes = recorded(kept, n);
    let swapped_bytes = recorded(swapped, n);
    // Every saved tensor from its making to its release: keep-all's line,
    // drawn over at least one op like the rest.
    let keep_all_saved = resident_timeline(profile, &Decision::keep_all(profile));
    let keep_all: Vec<u64> = (0..n as usize)
        .map(|i| keep_all_saved.get(i).copied().unwrap_or(0))
        .collect();
    let live: Vec<u64> = profile
        .ops
        .iter()
        .map(|o| o.live_bytes.saturating_sub(profile.start_live_bytes))
        .collect();
    let max = live
        .iter()
        .copied()
        .chain(kept_bytes.iter().zip(&swapped_bytes).map(|(a, b)| a + b))
        .chain(keep_all.iter().copied())
        .chain(budget)
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let x = |op: usize| LEFT + plot_w * op as f64 / n as f64;
    let y = |bytes: f64| TOP + plot_h * (1.0 - bytes / max);

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r##"<rect width="100%" height="100%" fill="white"/>"##
    );
    let _ = writeln!(
        svg,
        r##"<text x="{LEFT}" y="20" font-size="14">burn-swap memory timeline, iteration {} ({} ops)</text>"##,
        profile.iteration, profile.op_count
    );
    // Stacked areas: kept at the bottom, swapped on top of it.
    let area = |lower: &dyn Fn(usize) -> u64, upper: &dyn Fn(usize) -> u64, color: &str| {
        let mut points = String::new();
        for i in 0..n as usize {
            let _ = write!(
                points,
                "{:.1},{:.1} {:.1},{:.1} ",
                x(i),
                y(upper(i) as f64),
                x(i + 1),
                y(upper(i) as f64)
            );
        }
        for i in (0..n as usize).rev() {
            let _ = write!(
                points,
                "{:.1},{:.1} {:.1},{:.1} ",
                x(i + 1),
                y(lower(i) as f64),
                x(i),
                y(lower(i) as f64)
            );
        }
        format!(
            r##"<polygon points="{points}" fill="{color}" fill-opacity="0.75" stroke="none"/>"##
        )
    };
    let k = |i: usize| kept_bytes.get(i).copied().unwrap_or(0);
    let s = |i: usize| k(i) + swapped_bytes.get(i).copied().unwrap_or(0);
    let _ = writeln!(svg, "{}", area(&|_| 0, &k, "#4e79a7"));
    let _ = writeln!(svg, "{}", area(&k, &s, "#f28e2b"));
    let polyline = |values: &mut dyn Iterator<Item = u64>, style: &str| {
        let mut points = String::new();
        for (i, b) in values.enumerate() {
            let _ = write!(
                points,
                "{:.1},{:.1} ",
                x(i) + 0.5 * plot_w / n as f64,
                y(b as f64)
            );
        }
        format!(r##"<polyline points="{points}" fill="none" {style}/>"##)
    };
    let on_host =
        (0..n as usize).map(|i| keep_all.get(i).copied().unwrap_or(0).saturating_sub(s(i)));
    let keep_all_style = r##"stroke="#4e79a7" stroke-width="1.5" stroke-dasharray="5 3""##;
    let host_style = r##"stroke="#59a14f" stroke-width="1.5""##;
    let _ = writeln!(
        svg,
        "{}",
        polyline(&mut keep_all.iter().copied(), keep_all_style)
    );
    let _ = writeln!(svg, "{}", polyline(&mut on_host.into_iter(), host_style));
    // All live float tensors.
    let _ = writeln!(
        svg,
        "{}",
        polyline(
            &mut live.iter().copied(),
            r##"stroke="#333" stroke-width="1.2""##
        )
    );
    if let Some(bwd) = profile.backward_start {
        let bx = x(bwd as usize);
        let _ = writeln!(
            svg,
            r##"<line x1="{bx:.1}" y1="{TOP}" x2="{bx:.1}" y2="{:.1}" stroke="#888" stroke-dasharray="4 3"/><text x="{:.1}" y="{:.1}" fill="#555">backward</text>"##,
            TOP + plot_h,
            bx + 4.0,
            TOP + 34.0
        );
    }
    if let Some(b) = budget {
        let by = y(b as f64);
        let _ = writeln!(
            svg,
            r##"<line x1="{LEFT}" y1="{by:.1}" x2="{:.1}" y2="{by:.1}" stroke="#e15759" stroke-dasharray="6 3"/><text x="{:.1}" y="{:.1}" fill="#e15759" text-anchor="end">budget {}</text>"##,
            WIDTH - RIGHT,
            WIDTH - RIGHT,
            by - 4.0,
            human_bytes(b)
        );
    }
    // Axes and labels.
    let _ = writeln!(
        svg,
        r##"<line x1="{LEFT}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="black"/><line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{:.1}" stroke="black"/>"##,
        TOP + plot_h,
        WIDTH - RIGHT,
        TOP + plot_h,
        TOP + plot_h
    );
    for tick in 0..=4 {
        let bytes = max * tick as f64 / 4.0;
        let _ = writeln!(
            svg,
            r##"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT - 6.0,
            y(bytes) + 4.0,
            human_bytes(bytes as u64)
        );
    }
    let _ = writeln!(
        svg,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">op index</text><text x="{LEFT}" y="{:.1}">0</text><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
        LEFT + plot_w / 2.0,
        HEIGHT - 12.0,
        TOP + plot_h + 16.0,
        WIDTH - RIGHT,
        TOP + plot_h + 16.0,
        profile.op_count
    );
    let legend = [
        ("#4e79a7", "saved, kept"),
        ("#f28e2b", "saved, swapped (on device)"),
        ("#333", "device growth (held to the budget)"),
        ("#59a14f", "saved, in host memory"),
        ("#4e79a7", "saved if all were kept (dashed)"),
    ];
    for (i, (color, label)) in legend.iter().enumerate() {
        let lx = LEFT + 10.0 + 290.0 * (i % 3) as f64;
        let ly = TOP + 4.0 + 16.0 * (i / 3) as f64;
        let _ = writeln!(
            svg,
            r##"<rect x="{lx:.1}" y="{ly:.1}" width="12" height="12" fill="{color}"/><text x="{:.1}" y="{:.1}">{label}</text>"##,
            lx + 16.0,
            ly + 10.0
        );
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use crate::profile::{OpRecord, OutputInfo, Phase, Recorder};

    #[test]
    fn the_picture_has_keep_alls_line_and_the_host_series() {
        // One saved tensor made at op 0, moved off after op 1, back at op 3,
        // read in backward at op 3.
        let mut recorder = Recorder::new(8, 0);
        let info = OutputInfo {
            id: 1,
            output: 0,
            bytes: 400,
            shape: vec![100],
            dtype: "F32".into(),
        };
        let record = |index: u32, inputs: Vec<u64>, outputs: Vec<OutputInfo>| OpRecord {
            index,
            name: "op",
            signature: 0,
            inputs,
            outputs: outputs.iter().map(|o| o.id).collect(),
            output_info: outputs,
        };
        recorder.op(record(0, vec![], vec![info]), Phase::Forward, None, 400, 0);
        recorder.op(record(1, vec![1], vec![]), Phase::Forward, None, 400, 0);
        recorder.offloaded(1, 400, 1);
        recorder.backward_starts(2);
        recorder.op(record(2, vec![], vec![]), Phase::Backward, None, 0, 0);
        recorder.loaded(1, 400, 3);
        recorder.op(record(3, vec![1], vec![]), Phase::Backward, None, 400, 0);
        recorder.released(1, 3);
        let profile = recorder.finish(0, 4, None);
        assert!(profile.tensors[0].saved);
        let svg = super::timeline_svg(&profile, Some(1000));
        assert!(svg.contains("saved if all were kept"));
        assert!(svg.contains("saved, in host memory"));
        assert!(svg.contains("budget"));
        // Keep-all's dashed line and the host series are drawn.
        assert_eq!(svg.matches("<polyline").count(), 3);
    }
}
