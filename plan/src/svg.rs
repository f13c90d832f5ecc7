//! A picture of one iteration's memory: resident bytes over the op sequence.
//!
//! Stacked areas show the saved activations on the device, split by what
//! happened to them (kept, or swapped out and back); lines show all the
//! float tensor bytes the iteration added to the device (what the budget
//! holds), the saved bytes keeping everything would hold (keep-all, for
//! reference) and the saved bytes in host memory (offloaded and not yet
//! back); horizontal lines show the budget and the room the device had,
//! a vertical one the turn from forward to backward; a legend names each.

use std::fmt::Write;

use crate::human_bytes;
use crate::memory::{recorded, recorded_saved_on_host, resident_timeline};
use crate::plan::Decision;
use crate::profile::{Profile, TensorProfile};

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 480.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 104.0;
const BOTTOM: f64 = 50.0;

/// What [`timeline_svg_with`] draws besides the profile.
#[derive(Debug, Clone, Default)]
pub struct SvgOptions {
    /// The budget: a horizontal line.
    pub budget: Option<u64>,
    /// The device memory the run had (e.g. the example's
    /// `--device-memory`): a horizontal line at what it left the iteration,
    /// that is less the bytes it began with.
    pub device_memory: Option<u64>,
    /// A plan's device bytes op by op, as predicted from a profile
    /// ([`Footprint::timeline`](crate::Footprint::timeline)): a line beside
    /// what the iteration really added.
    pub predicted: Option<Vec<u64>>,
}

/// An SVG of `profile`'s memory timeline; `budget` draws a line.
pub fn timeline_svg(profile: &Profile, budget: Option<u64>) -> String {
    timeline_svg_with(
        profile,
        &SvgOptions {
            budget,
            ..SvgOptions::default()
        },
    )
}

/// An SVG of `profile`'s memory timeline, with the lines `options` asks for.
pub fn timeline_svg_with(profile: &Profile, options: &SvgOptions) -> String {
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
    let on_host = recorded_saved_on_host(&profile.tensors, n);
    let live: Vec<u64> = profile
        .ops
        .iter()
        .map(|o| o.live_bytes.saturating_sub(profile.start_live_bytes))
        .collect();
    // The plot counts what the iteration added: the device's room is what
    // it had less what the iteration began with.
    let room = options
        .device_memory
        .map(|d| d.saturating_sub(profile.start_live_bytes));
    let max = live
        .iter()
        .copied()
        .chain(kept_bytes.iter().zip(&swapped_bytes).map(|(a, b)| a + b))
        .chain(keep_all.iter().copied())
        .chain(on_host.iter().copied())
        .chain(options.budget)
        .chain(room)
        .chain(options.predicted.iter().flatten().copied())
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
        r##"<text x="{LEFT}" y="20" font-size="14">burn-swap memory timeline, iteration {} ({} ops): bytes the iteration added to the device, and saved bytes on the host</text>"##,
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
    let keep_all_style = r##"stroke="#4e79a7" stroke-width="1.5" stroke-dasharray="5 3""##;
    let host_style = r##"stroke="#59a14f" stroke-width="2""##;
    let live_style = r##"stroke="#333" stroke-width="1.2""##;
    let _ = writeln!(
        svg,
        "{}",
        polyline(&mut keep_all.iter().copied(), keep_all_style)
    );
    let _ = writeln!(
        svg,
        "{}",
        polyline(&mut on_host.iter().copied(), host_style)
    );
    // All live float tensors.
    let _ = writeln!(svg, "{}", polyline(&mut live.iter().copied(), live_style));
    let predicted_style = r##"stroke="#76b7b2" stroke-width="2" stroke-dasharray="2 2""##;
    if let Some(predicted) = &options.predicted {
        let _ = writeln!(
            svg,
            "{}",
            polyline(&mut predicted.iter().copied(), predicted_style)
        );
    }
    if let Some(bwd) = profile.backward_start {
        let bx = x(bwd as usize);
        let _ = writeln!(
            svg,
            r##"<line x1="{bx:.1}" y1="{TOP}" x2="{bx:.1}" y2="{:.1}" stroke="#555" stroke-width="1.5"/><text x="{:.1}" y="{:.1}" fill="#555" text-anchor="end">forward</text><text x="{:.1}" y="{:.1}" fill="#555">backward</text>"##,
            TOP + plot_h,
            bx - 4.0,
            TOP - 6.0,
            bx + 4.0,
            TOP - 6.0
        );
    }
    let level = |bytes: u64, color: &str, dash: &str, label: String| {
        let ly = y(bytes as f64);
        format!(
            // The label keeps a white halo over the lines it crosses.
            r##"<line x1="{LEFT}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{color}" stroke-width="1.5" stroke-dasharray="{dash}"/><text x="{:.1}" y="{:.1}" fill="{color}" text-anchor="end" stroke="white" stroke-width="3" paint-order="stroke">{label}</text>"##,
            WIDTH - RIGHT,
            WIDTH - RIGHT - 4.0,
            ly - 4.0,
        )
    };
    if let Some(b) = options.budget {
        let _ = writeln!(
            svg,
            "{}",
            level(b, "#e15759", "6 3", format!("budget {}", human_bytes(b)))
        );
    }
    if let (Some(d), Some(r)) = (options.device_memory, room) {
        let label = format!(
            "device memory {} (less {} in use when the iteration began)",
            human_bytes(d),
            human_bytes(profile.start_live_bytes)
        );
        let _ = writeln!(svg, "{}", level(r, "#b07aa1", "2 2", label));
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
    // Areas get a filled swatch, lines a stroke in their own style.
    let mut legend: Vec<(String, String)> = vec![
        (
            r##"<rect x="{x}" y="{y}" width="14" height="10" fill="#4e79a7" fill-opacity="0.75"/>"##.into(),
            "saved, kept on the device".into(),
        ),
        (
            r##"<rect x="{x}" y="{y}" width="14" height="10" fill="#f28e2b" fill-opacity="0.75"/>"##.into(),
            "saved, swapped (while on the device)".into(),
        ),
        (
            format!(r##"<line x1="{{x}}" y1="{{m}}" x2="{{x2}}" y2="{{m}}" {host_style}/>"##),
            "saved, in host memory".into(),
        ),
        (
            format!(r##"<line x1="{{x}}" y1="{{m}}" x2="{{x2}}" y2="{{m}}" {keep_all_style}/>"##),
            "keep-all: saved on the device if nothing moved".into(),
        ),
        (
            format!(r##"<line x1="{{x}}" y1="{{m}}" x2="{{x2}}" y2="{{m}}" {live_style}/>"##),
            "all tensors the iteration added (held to the budget)".into(),
        ),
    ];
    if options.predicted.is_some() {
        legend.push((
            format!(r##"<line x1="{{x}}" y1="{{m}}" x2="{{x2}}" y2="{{m}}" {predicted_style}/>"##),
            "the plan's device bytes, as predicted from the profile".into(),
        ));
    }
    if options.budget.is_some() {
        legend.push((
            r##"<line x1="{x}" y1="{m}" x2="{x2}" y2="{m}" stroke="#e15759" stroke-width="1.5" stroke-dasharray="6 3"/>"##.into(),
            "budget".into(),
        ));
    }
    if room.is_some() {
        legend.push((
            r##"<line x1="{x}" y1="{m}" x2="{x2}" y2="{m}" stroke="#b07aa1" stroke-width="1.5" stroke-dasharray="2 2"/>"##.into(),
            "device memory".into(),
        ));
    }
    for (i, (swatch, label)) in legend.iter().enumerate() {
        let lx = LEFT + 430.0 * (i % 2) as f64;
        let ly = 30.0 + 16.0 * (i / 2) as f64;
        let swatch = swatch
            .replace("{x2}", &format!("{:.1}", lx + 14.0))
            .replace("{x}", &format!("{lx:.1}"))
            .replace("{y}", &format!("{:.1}", ly + 1.0))
            .replace("{m}", &format!("{:.1}", ly + 6.0));
        let _ = writeln!(
            svg,
            r##"{swatch}<text x="{:.1}" y="{:.1}">{label}</text>"##,
            lx + 18.0,
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
    fn the_picture_has_keep_alls_line_the_host_series_and_its_levels() {
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
            replayable: false,
            flops: 0,
            bytes: 0,
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
        let options = super::SvgOptions {
            budget: Some(1000),
            device_memory: Some(2000),
            ..Default::default()
        };
        let svg = super::timeline_svg_with(&profile, &options);
        assert!(svg.contains("keep-all: saved on the device if nothing moved"));
        assert!(svg.contains("saved, in host memory"));
        assert!(svg.contains("budget 1000 B"));
        assert!(svg.contains("device memory 2.0 KiB"));
        assert!(svg.contains(">backward</text>") && svg.contains(">forward</text>"));
        // Keep-all's dashed line, the host series and the device growth.
        assert_eq!(svg.matches("<polyline").count(), 3);
        // The host line is up (400 bytes) at op 2 only: three ops of four
        // at the bottom of the plot.
        let host = svg
            .lines()
            .find(|l| l.starts_with("<polyline") && l.contains("#59a14f"))
            .unwrap();
        let bottom = format!("{:.1} ", super::HEIGHT - super::BOTTOM);
        assert_eq!(host.matches(&bottom).count(), 3);
    }

    #[test]
    fn a_plans_predicted_device_bytes_are_drawn_when_given() {
        let profile = crate::testing::chain(&[100, 200]);
        let predicted =
            crate::Footprint::of(&profile).timeline(&profile, &crate::Decision::keep_all(&profile));
        let options = super::SvgOptions {
            predicted: Some(predicted),
            ..Default::default()
        };
        let svg = super::timeline_svg_with(&profile, &options);
        assert!(svg.contains("the plan's device bytes, as predicted from the profile"));
        assert_eq!(svg.matches("<polyline").count(), 4);
    }
}
