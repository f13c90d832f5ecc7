//! Which plan runs fastest on the device, measured.
//!
//! Plans are chosen on a replayed iteration. What the replay does not see,
//! the device's own pace does: the codecs' launches on the training thread
//! and the room their buffers take where the budget is tight (ResNet-50 b48
//! at 2 GiB on an H100: `cswap` compressed 46 copies and ran 0.50 s a step
//! against swap-all's 0.47 s), prefetches that wait for room under the
//! budget (VGG16 b2048 at 1.6 GiB on an H200: `home` ran at 0.84x of plain,
//! the `capuchin` plan it started from at 0.90x). So once a plan is refined
//! from the measured step, it is timed against the same plan with every
//! copy moved as it is (where it compresses) and against the plan of each
//! of the policy's rivals that fits, each over the steps the pace is
//! measured on, in turn and back (own, A, B, A, own), and each one's paces
//! averaged: timed once each in one order, ResNet-50 b48 on an H200 read
//! `home`'s plan 3% faster than its steps ran after the trial, and its
//! rivals' 4% slower than in runs of their own. The fastest stays for that
//! op sequence, and the plan is made its way from then on (re-plans for
//! counted zeros or for what the device adds beyond the plan included).
//! Every rival with a plan is timed, however far the replay puts it: the
//! replay's order is not the device's (ResNet-50 b48 at 3.1 GiB on an
//! H200: `superneurons`' plan, predicted the slowest of three, ran 10%
//! faster than the other two), and the trial runs once per op sequence.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::policy::{Plan, Policy};

/// A plan replaces the fastest so far only if faster by more than this
/// fraction: the pace of a few steps varies by about as much.
const MARGIN: f64 = 0.02;

/// How a candidate plan is made.
#[derive(Clone)]
pub(crate) enum Way {
    /// The policy's own plan.
    Own,
    /// The policy's plan with every copy moved as it is.
    WithoutCodecs,
    /// A rival policy's plan.
    Rival(Arc<dyn Policy>),
}

impl fmt::Debug for Way {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Way::Own => f.write_str("Own"),
            Way::WithoutCodecs => f.write_str("WithoutCodecs"),
            Way::Rival(policy) => write!(f, "Rival({})", policy.name()),
        }
    }
}

impl Way {
    /// The way in words, for the verdict (`policy`: the configured one).
    pub(crate) fn describe(&self, policy: &str) -> String {
        match self {
            Way::Own => format!("{} plan", possessive(policy)),
            Way::WithoutCodecs => format!(
                "{} plan with its copies moved as they are",
                possessive(policy)
            ),
            Way::Rival(rival) => format!("{} plan", possessive(rival.name())),
        }
    }
}

/// `name`'s, in words: `superneurons'`, `home's`.
fn possessive(name: &str) -> String {
    match name.ends_with('s') {
        true => format!("{name}'"),
        false => format!("{name}'s"),
    }
}

/// A plan to time, and how it was made.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) way: Way,
    pub(crate) plan: Arc<Plan>,
}

/// Where the timing of an op sequence's plans stands.
#[derive(Debug, Default)]
pub(crate) enum PlanTrial {
    /// Nothing timed yet.
    #[default]
    Idle,
    /// `candidates[current]` is in force and being timed.
    Timing {
        of: Vec<u64>,
        /// The plans timed, the policy's own first.
        candidates: Vec<Candidate>,
        current: usize,
        /// The candidates still to time, in this order: there and back
        /// (own, A, B, A, own), so a pace that drifts over the trial, or a
        /// plan slowed by the one before it, weighs on each alike.
        queue: Vec<usize>,
        /// Each candidate's paces so far.
        paces: Vec<Vec<Duration>>,
        /// Rivals not timed, each with why (`who: why`: no plan for the
        /// profile and budget, or the same plan), for the verdict.
        not_timed: Vec<String>,
    },
    /// Timed for the op sequence `of`: its plans are made `way`.
    Decided { of: Vec<u64>, way: Way },
}

/// What the executor does after an iteration that followed its plan.
#[derive(Debug)]
pub(crate) enum TrialStep {
    /// Nothing to change.
    Wait,
    /// Start measuring the pace again (a plan began to be timed).
    Restart,
    /// Put this plan in force and time it (then [`PlanTrial::timing`]).
    Try(Arc<Plan>),
    /// Every candidate was timed: the `verdict` in words, and the winner to
    /// put back in force if it is not the one in force now.
    Decided {
        verdict: String,
        restore: Option<Arc<Plan>>,
    },
}

impl PlanTrial {
    /// Whether a trial for `active`'s op sequence has begun (or ended).
    pub(crate) fn began_for(&self, active: &Plan) -> bool {
        match self {
            PlanTrial::Idle => false,
            PlanTrial::Timing { of, .. } | PlanTrial::Decided { of, .. } => {
                *of == active.op_signatures
            }
        }
    }

    /// Begins timing `active` (the policy's own plan) against `others`;
    /// with none it is decided at once. `not_timed`: the rivals not timed,
    /// each with why (`who: why`), said in the verdict.
    pub(crate) fn begin(
        &mut self,
        active: Arc<Plan>,
        others: Vec<Candidate>,
        not_timed: Vec<String>,
    ) -> TrialStep {
        let of = active.op_signatures.clone();
        if others.is_empty() {
            *self = PlanTrial::Decided { of, way: Way::Own };
            return TrialStep::Wait;
        }
        let count = others.len() + 1;
        let mut candidates = vec![Candidate {
            way: Way::Own,
            plan: active,
        }];
        candidates.extend(others);
        *self = PlanTrial::Timing {
            of,
            candidates,
            current: 0,
            queue: there_and_back(count),
            paces: vec![Vec::new(); count],
            not_timed,
        };
        TrialStep::Restart
    }

    /// Whether plans are being timed.
    pub(crate) fn trying(&self) -> bool {
        matches!(self, PlanTrial::Timing { .. })
    }

    /// How plans for the op sequence `ops` are made now: the way being
    /// timed, or the one that won.
    pub(crate) fn way_for(&self, ops: &[u64]) -> Option<&Way> {
        match self {
            PlanTrial::Timing {
                of,
                candidates,
                current,
                ..
            } if of == ops => Some(&candidates[*current].way),
            PlanTrial::Decided { of, way } if of == ops => Some(way),
            _ => None,
        }
    }

    /// The next step after an iteration that followed `active`, whose pace
    /// (the median step since the last restart) is `step` once measured;
    /// `policy` names the configured policy in the verdict.
    pub(crate) fn next(
        &mut self,
        active: &Arc<Plan>,
        step: Option<Duration>,
        policy: &str,
    ) -> TrialStep {
        let PlanTrial::Timing {
            of,
            candidates,
            current,
            queue,
            paces,
            not_timed,
        } = self
        else {
            return TrialStep::Wait;
        };
        if *of != active.op_signatures {
            // Another op sequence: it is timed afresh.
            *self = PlanTrial::Idle;
            return TrialStep::Wait;
        }
        if !Arc::ptr_eq(&candidates[*current].plan, active) {
            // Made again the same way (zeros counted, room for what the
            // device adds): that plan is the one timed, from now.
            candidates[*current].plan = active.clone();
            return TrialStep::Restart;
        }
        let Some(step) = step else {
            return TrialStep::Wait;
        };
        paces[*current].push(step);
        if !queue.is_empty() {
            *current = queue.remove(0);
            return TrialStep::Try(candidates[*current].plan.clone());
        }
        let means: Vec<f64> = paces
            .iter()
            .map(|p| p.iter().map(Duration::as_secs_f64).sum::<f64>() / p.len().max(1) as f64)
            .collect();
        // The first timed (the policy's own) is the fastest until another
        // beats it by more than the margin.
        let mut best = 0;
        for (i, &mean) in means.iter().enumerate().skip(1) {
            if mean < means[best] * (1.0 - MARGIN) {
                best = i;
            }
        }
        let verdict = verdict(candidates, paces, &means, best, policy, not_timed);
        let winner = candidates.swap_remove(best);
        let restore = (!Arc::ptr_eq(&winner.plan, active)).then_some(winner.plan);
        let of = std::mem::take(of);
        *self = PlanTrial::Decided {
            of,
            way: winner.way,
        };
        TrialStep::Decided { verdict, restore }
    }

    /// The plan now in force for the candidate being timed (after
    /// [`TrialStep::Try`]: installing may have remade it).
    pub(crate) fn timing(&mut self, plan: Arc<Plan>) {
        if let PlanTrial::Timing {
            candidates,
            current,
            ..
        } = self
        {
            candidates[*current].plan = plan;
        }
    }
}

/// The order `count` candidates are timed in after the first: the others,
/// then back to the first (own, A, B, A, own).
fn there_and_back(count: usize) -> Vec<usize> {
    (1..count).chain((0..count - 1).rev()).collect()
}

/// The verdict in words, for the iteration's report
/// ([`IterationReport::plans_timed`](crate::IterationReport::plans_timed)).
fn verdict(
    candidates: &[Candidate],
    paces: &[Vec<Duration>],
    means: &[f64],
    best: usize,
    policy: &str,
    not_timed: &[String],
) -> String {
    let ms = |secs: f64| format!("{:.1}", secs * 1e3);
    let timed: Vec<String> = candidates
        .iter()
        .zip(paces)
        .zip(means)
        .map(|((c, paces), &mean)| {
            let each: Vec<String> = paces.iter().map(|p| ms(p.as_secs_f64())).collect();
            // What the evaluator said before the plan ran: for a rival's
            // plan, with the evaluator fitted to the policy's own.
            let predicted = c.plan.predicted.as_ref().map_or(String::new(), |p| {
                let predicted = p.iteration_ns / 1e9;
                format!(
                    "; predicted {} ms, {:+.1}%",
                    ms(predicted),
                    (predicted / mean - 1.0) * 100.0
                )
            });
            format!(
                "{} {} ms ({}{predicted}; {})",
                c.way.describe(policy),
                ms(mean),
                each.join(", "),
                moves(&c.plan)
            )
        })
        .collect();
    let not_timed = if not_timed.is_empty() {
        String::new()
    } else {
        format!("; not timed: {}", not_timed.join("; "))
    };
    format!(
        "timed on the device in turn and back, the mean of each one's paces: {}; {} stays{not_timed}",
        timed.join(", "),
        candidates[best].way.describe(policy)
    )
}

/// What a plan does with the saved tensors, in a few words: plans timed
/// against each other differ there, and the trial's verdict shows how.
fn moves(plan: &Plan) -> String {
    let swapped = plan.swapped_count();
    let mut words = vec![match swapped {
        0 => "nothing swapped".to_string(),
        n => format!(
            "{n} swapped ({})",
            burn_swap_plan::human_bytes(plan.swapped_bytes())
        ),
    }];
    if plan.compressed_count() > 0 {
        words.push(format!("{} compressed", plan.compressed_count()));
    }
    if plan.rerun_count() > 0 {
        words.push(format!("{} rebuilt", plan.rerun_count()));
    }
    if plan.stand_in_count() > 0 {
        words.push(format!("{} stood in for", plan.stand_in_count()));
    }
    words.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Action, Capuchin, Codec, Decision, SwapAll};
    use burn_swap_plan::profile::TensorKey;

    fn plan(codec: Option<Codec>, op_signatures: Vec<u64>) -> Arc<Plan> {
        let decision = Decision {
            key: TensorKey { op: 0, output: 0 },
            bytes: 1 << 20,
            action: Action::Swap,
            offload_after: 1,
            prefetch_at: 3,
            needed_at: 3,
            codec,
            stand_in: None,
            transient: false,
        };
        Arc::new(Plan {
            op_signatures,
            ..crate::policy::plan_for_tests(vec![decision], None)
        })
    }

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    fn rival(policy: Arc<dyn Policy>, ops: Vec<u64>) -> Candidate {
        Candidate {
            way: Way::Rival(policy),
            plan: plan(None, ops),
        }
    }

    /// Times `own` and `others` in turn and back, at `paces` (in the order
    /// timed: own, the others, the others back, own).
    fn run(own: &Arc<Plan>, others: Vec<Candidate>, paces: &[u64]) -> (PlanTrial, TrialStep) {
        run_noting(own, others, Vec::new(), paces)
    }

    /// As [`run`], with `not_timed` noted as the rivals not timed.
    fn run_noting(
        own: &Arc<Plan>,
        others: Vec<Candidate>,
        not_timed: Vec<String>,
        paces: &[u64],
    ) -> (PlanTrial, TrialStep) {
        let mut trial = PlanTrial::default();
        assert!(matches!(
            trial.begin(own.clone(), others, not_timed),
            TrialStep::Restart
        ));
        let mut active = own.clone();
        assert!(matches!(trial.next(&active, None, "home"), TrialStep::Wait));
        for (i, &pace) in paces.iter().enumerate() {
            match trial.next(&active, ms(pace), "home") {
                TrialStep::Try(next) if i + 1 < paces.len() => {
                    trial.timing(next.clone());
                    active = next;
                }
                last => return (trial, last),
            }
        }
        unreachable!("the trial decides after the last pace")
    }

    /// The trial of op sequence `[1]` decided for the policy's own plan,
    /// which is in force already.
    fn assert_own_plan_stays(trial: &PlanTrial, step: &TrialStep) {
        assert!(
            matches!(step, TrialStep::Decided { restore: None, .. }),
            "{step:?}"
        );
        assert!(matches!(trial.way_for(&[1]), Some(Way::Own)));
    }

    #[test]
    fn the_fastest_plan_stays_and_plans_for_its_ops_are_made_its_way() {
        let own = plan(Some(Codec::Zvc), vec![1, 2]);
        let others = vec![
            Candidate {
                way: Way::WithoutCodecs,
                plan: plan(None, vec![1, 2]),
            },
            rival(Arc::new(Capuchin), vec![1, 2]),
        ];
        let capuchin = others[1].plan.clone();
        // Own, without codecs, capuchin, without codecs, own.
        let (trial, step) = run(&own, others, &[500, 480, 450, 482, 502]);
        match step {
            TrialStep::Decided {
                verdict,
                restore: Some(back),
            } => {
                assert!(Arc::ptr_eq(&back, &capuchin));
                assert!(
                    verdict.ends_with("capuchin's plan stays")
                        && verdict.contains(
                            "home's plan 501.0 ms (500.0, 502.0; 1 swapped (1.0 MiB), 1 compressed)"
                        ),
                    "{verdict}"
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(trial.way_for(&[1, 2]), Some(Way::Rival(p)) if p.name() == "capuchin"));
        assert!(trial.way_for(&[3]).is_none());
        assert!(trial.began_for(&capuchin));
    }

    #[test]
    fn the_verdict_gives_each_plans_predicted_step_beside_its_pace() {
        let own = plan(None, vec![1]);
        let mut capuchin = (*plan(None, vec![1])).clone();
        capuchin.predicted = Some(burn_swap_plan::cost::SwapReplay {
            iteration_ns: 324e6,
            ..Default::default()
        });
        let others = vec![Candidate {
            way: Way::Rival(Arc::new(Capuchin)),
            plan: Arc::new(capuchin),
        }];
        let (_, step) = run(&own, others, &[290, 276, 290]);
        match step {
            TrialStep::Decided { verdict, .. } => assert!(
                verdict.contains(
                    "capuchin's plan 276.0 ms (276.0; predicted 324.0 ms, +17.4%; 1 swapped (1.0 MiB))"
                ) && verdict.contains("home's plan 290.0 ms (290.0, 290.0; 1 swapped (1.0 MiB))"),
                "{verdict}"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_verdict_names_the_rivals_that_made_no_plan() {
        let own = plan(None, vec![1]);
        let others = vec![rival(Arc::new(Capuchin), vec![1])];
        let not_timed =
            vec!["superneurons: no plan, needs 3.4 GiB against a budget of 3.1 GiB".into()];
        let (_, step) = run_noting(&own, others, not_timed, &[290, 300, 290]);
        match step {
            TrialStep::Decided { verdict, .. } => assert!(
                verdict.ends_with(
                    "home's plan stays; not timed: superneurons: no plan, needs 3.4 GiB against a budget of 3.1 GiB"
                ),
                "{verdict}"
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_policys_own_plan_wins_ties_and_stays_in_force() {
        let own = plan(None, vec![1]);
        let (mut trial, step) = run(
            &own,
            vec![rival(Arc::new(SwapAll), vec![1])],
            &[500, 495, 500],
        );
        assert_own_plan_stays(&trial, &step);
        // Decided, it stays so for the plans of its op sequence.
        let again = plan(None, vec![1]);
        assert!(matches!(trial.next(&again, ms(1), "home"), TrialStep::Wait));
        assert!(trial.began_for(&again) && !trial.trying());
    }

    #[test]
    fn a_pace_that_drifts_over_the_trial_does_not_pick_the_plan_timed_later() {
        // The device speeds up as the trial goes on: timed once each, the
        // rival would look 3.7% faster; there and back, the two are even.
        let own = plan(None, vec![1]);
        let (trial, step) = run(
            &own,
            vec![rival(Arc::new(Capuchin), vec![1])],
            &[300, 289, 280],
        );
        assert_own_plan_stays(&trial, &step);
    }

    #[test]
    fn a_rival_the_replay_puts_far_is_timed_and_can_win() {
        let mut own = (*plan(None, vec![1])).clone();
        own.predicted = Some(burn_swap_plan::cost::SwapReplay {
            iteration_ns: 200e6,
            ..Default::default()
        });
        let mut capuchin = (*plan(None, vec![1])).clone();
        capuchin.predicted = Some(burn_swap_plan::cost::SwapReplay {
            iteration_ns: 500e6,
            ..Default::default()
        });
        let capuchin = Arc::new(capuchin);
        let others = vec![Candidate {
            way: Way::Rival(Arc::new(Capuchin)),
            plan: capuchin.clone(),
        }];
        // Predicted 2.5 times the own plan's step, it runs faster.
        match run(&Arc::new(own), others, &[240, 220, 241]).1 {
            TrialStep::Decided {
                restore: Some(winner),
                verdict,
            } => {
                assert!(Arc::ptr_eq(&winner, &capuchin));
                assert!(verdict.ends_with("capuchin's plan stays"), "{verdict}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_plan_remade_mid_trial_is_timed_from_then_on_and_nothing_to_compare_decides_at_once() {
        let mut trial = PlanTrial::default();
        let own = plan(None, vec![1]);
        trial.begin(
            own.clone(),
            vec![rival(Arc::new(SwapAll), vec![1])],
            Vec::new(),
        );
        let remade = plan(None, vec![1]);
        assert!(matches!(
            trial.next(&remade, ms(1), "home"),
            TrialStep::Restart
        ));
        assert!(
            matches!(&trial, PlanTrial::Timing { candidates, current: 0, paces, .. } if Arc::ptr_eq(&candidates[0].plan, &remade) && paces.iter().all(Vec::is_empty))
        );

        let mut alone = PlanTrial::default();
        assert!(matches!(
            alone.begin(own.clone(), Vec::new(), Vec::new()),
            TrialStep::Wait
        ));
        assert!(matches!(alone.way_for(&[1]), Some(Way::Own)));
        assert!(matches!(alone.next(&own, ms(1), "home"), TrialStep::Wait));
    }
}
