//! Whether a plan's compression pays, measured on the device.
//!
//! The cost model chooses codecs on a replayed iteration. What it does not
//! see, the device's own pace does: the codecs' launches on the training
//! thread, and the room their buffers take where the budget is tight
//! (ResNet-50 b48 at 2 GiB on an H100: `cswap` compressed 46 copies and ran
//! 0.50 s a step against swap-all's 0.47 s). So a plan that compresses is
//! timed against itself with every copy moved as it is, each over the steps
//! the pace is measured on, and the faster stays for that op sequence.

use std::sync::Arc;
use std::time::Duration;

use crate::policy::Plan;

/// The compressed plan stays unless the plain one is faster by more than
/// this fraction: the pace of a few steps varies by about as much.
const MARGIN: f64 = 0.02;

/// Where the timing of a plan's codecs stands.
#[derive(Debug, Default)]
pub(crate) enum CodecTrial {
    /// No plan with codecs timed yet.
    #[default]
    Idle,
    /// The plan with codecs is in force and being timed.
    Compressed { plan: Arc<Plan> },
    /// Its pace known, the same plan without codecs is being timed.
    Plain {
        compressed: Arc<Plan>,
        compressed_step: Duration,
        plain: Arc<Plan>,
    },
    /// Timed for the op sequence `of`: whether the codecs paid.
    Decided { pay: bool, of: Vec<u64> },
}

/// What the executor does after an iteration that followed `active`.
#[derive(Debug)]
pub(crate) enum TrialStep {
    /// Nothing to change.
    Wait,
    /// Start measuring the pace again (a plan began to be timed).
    Restart,
    /// Put `active` without its codecs in force and time it.
    TryPlain,
    /// Both plans were timed: the `verdict` in words, and where the codecs
    /// paid, the plan with them to put back in force.
    Decided {
        verdict: String,
        restore: Option<Arc<Plan>>,
    },
    /// A plan with codecs came for an op sequence where they did not pay:
    /// put it in force without them.
    StripCodecs,
}

/// A verdict in words, for the iteration's report
/// ([`IterationReport::codecs_timed`](crate::IterationReport::codecs_timed)).
fn verdict(compressed: Duration, plain: Duration, pay: bool) -> String {
    format!(
        "timed on the device: {:.1} ms a step with its compressed copies, {:.1} ms with them moved as they are; {}",
        compressed.as_secs_f64() * 1e3,
        plain.as_secs_f64() * 1e3,
        if pay {
            "the compressed copies stay"
        } else {
            "they move as they are from now on"
        }
    )
}

impl CodecTrial {
    /// The next step after an iteration that followed `active`, whose pace
    /// (the median step since the last restart) is `step` once measured.
    /// `step` is `None` until enough steps followed the plan.
    pub(crate) fn next(&mut self, active: &Arc<Plan>, step: Option<Duration>) -> TrialStep {
        let compresses = active.compressed_count() > 0;
        match std::mem::take(self) {
            CodecTrial::Idle if compresses => {
                *self = CodecTrial::Compressed {
                    plan: active.clone(),
                };
                TrialStep::Restart
            }
            CodecTrial::Idle => TrialStep::Wait,
            CodecTrial::Compressed { plan } if Arc::ptr_eq(&plan, active) => match step {
                Some(step) => {
                    // `plain` stands for the plan the executor makes next
                    // and names with `timing_plain`.
                    *self = CodecTrial::Plain {
                        compressed: plan,
                        compressed_step: step,
                        plain: active.clone(),
                    };
                    TrialStep::TryPlain
                }
                None => {
                    *self = CodecTrial::Compressed { plan };
                    TrialStep::Wait
                }
            },
            CodecTrial::Plain {
                compressed,
                compressed_step,
                plain,
            } if Arc::ptr_eq(&plain, active) => match step {
                Some(step) => {
                    let pay = step.as_secs_f64() >= compressed_step.as_secs_f64() * (1.0 - MARGIN);
                    *self = CodecTrial::Decided {
                        pay,
                        of: compressed.op_signatures.clone(),
                    };
                    TrialStep::Decided {
                        verdict: verdict(compressed_step, step, pay),
                        restore: pay.then_some(compressed),
                    }
                }
                None => {
                    *self = CodecTrial::Plain {
                        compressed,
                        compressed_step,
                        plain,
                    };
                    TrialStep::Wait
                }
            },
            CodecTrial::Decided { pay, of } if of == active.op_signatures => {
                *self = CodecTrial::Decided { pay, of };
                match (pay, compresses) {
                    (false, true) => TrialStep::StripCodecs,
                    _ => TrialStep::Wait,
                }
            }
            // Another plan came in force meanwhile (a new op sequence, or
            // one made again for other reasons): it is timed afresh.
            _ => {
                *self = CodecTrial::Idle;
                self.next(active, None)
            }
        }
    }

    /// The plain plan now in force (after [`TrialStep::TryPlain`]).
    pub(crate) fn timing_plain(&mut self, plan: Arc<Plan>) {
        if let CodecTrial::Plain { plain, .. } = self {
            *plain = plan;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Action, Codec, Decision};
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
        };
        Arc::new(Plan {
            op_signatures,
            ..crate::policy::plan_for_tests(vec![decision], None)
        })
    }

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    #[test]
    fn compression_that_does_not_pay_on_the_device_is_dropped_for_its_op_sequence() {
        let mut trial = CodecTrial::default();
        let compressed = plan(Some(Codec::Zvc), vec![1, 2]);
        assert!(matches!(trial.next(&compressed, None), TrialStep::Restart));
        assert!(matches!(trial.next(&compressed, None), TrialStep::Wait));
        assert!(matches!(
            trial.next(&compressed, ms(500)),
            TrialStep::TryPlain
        ));
        let plain = plan(None, vec![1, 2]);
        trial.timing_plain(plain.clone());
        assert!(
            matches!(&trial, CodecTrial::Plain { compressed_step, .. } if Some(*compressed_step) == ms(500))
        );
        assert!(matches!(trial.next(&plain, None), TrialStep::Wait));
        // 470 ms against 500: more than the margin faster.
        assert!(matches!(
            trial.next(&plain, ms(470)),
            TrialStep::Decided { restore: None, .. }
        ));
        assert!(matches!(trial, CodecTrial::Decided { pay: false, .. }));
        // A plan made again with codecs for the same ops loses them.
        let again = plan(Some(Codec::Zvc), vec![1, 2]);
        assert!(matches!(trial.next(&again, None), TrialStep::StripCodecs));
        assert!(matches!(trial.next(&plain, None), TrialStep::Wait));
        // Another op sequence is timed afresh.
        let other = plan(Some(Codec::Zvc), vec![3]);
        assert!(matches!(trial.next(&other, None), TrialStep::Restart));
    }

    #[test]
    fn compression_that_pays_or_ties_comes_back() {
        for plain_ms in [600, 495] {
            let mut trial = CodecTrial::default();
            let compressed = plan(Some(Codec::Zvc), vec![1]);
            trial.next(&compressed, None);
            assert!(matches!(
                trial.next(&compressed, ms(500)),
                TrialStep::TryPlain
            ));
            let plain = plan(None, vec![1]);
            trial.timing_plain(plain.clone());
            match trial.next(&plain, ms(plain_ms)) {
                TrialStep::Decided {
                    restore: Some(back),
                    ..
                } => assert!(Arc::ptr_eq(&back, &compressed)),
                other => panic!("{other:?}"),
            }
            assert!(matches!(trial, CodecTrial::Decided { pay: true, .. }));
        }
    }

    #[test]
    fn a_plan_replaced_mid_trial_is_timed_afresh_and_plans_without_codecs_are_not_timed() {
        let mut trial = CodecTrial::default();
        let plain = plan(None, vec![1]);
        assert!(matches!(trial.next(&plain, ms(1)), TrialStep::Wait));
        let first = plan(Some(Codec::Zvc), vec![1]);
        trial.next(&first, None);
        let replaced = plan(Some(Codec::Csr), vec![1]);
        assert!(matches!(trial.next(&replaced, ms(1)), TrialStep::Restart));
        assert!(matches!(trial, CodecTrial::Compressed { plan } if Arc::ptr_eq(&plan, &replaced)));
    }
}
