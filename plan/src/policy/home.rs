//! HOME: one action per saved tensor (keep, swap, compress then swap, or
//! rebuild) chosen by a particle swarm, each candidate plan scored by the
//! [`Evaluator`]'s replay of the iteration.
//!
//! A particle is one action per movable tensor. Particles start at random,
//! except a few that start at the plans of the baselines (keep-all,
//! swap-all, rebuild-where-possible, SuperNeurons' rule and the
//! Capuchin-like greedy), so the search ends no worse than any of them; each
//! round every tensor of every
//! particle moves, with set probabilities, to its action in the round's best
//! particle, in the best plan found so far, in the particle's own best, or
//! to a random one. A plan's score is its predicted iteration time (at equal
//! times, fewer bytes over the link); a plan over the budget, or over the
//! host memory the pinned pool can take, scores worse than any within both,
//! by how far over it is.
//! The search ends after its rounds, or sooner once its best plan has not
//! improved for a set number of them.
//! Particles are scored in parallel on all cores; each has its own random
//! stream from the seed, so the result depends on the seed only.

use std::fmt;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use super::swap_all::schedule_prefetches;
use super::{
    decision, finish_plan, movable, needs_link_and_op_times, Capuchin, PlanParams, Policy,
    SuperNeurons, SwapAll,
};
use crate::cost::{isolated_choice, Codec, CostModel};
use crate::error::PlanError;
use crate::evaluate::{Evaluation, Evaluator};
use crate::plan::{Action, Decision, Plan};
use crate::profile::{Profile, TensorProfile};
use crate::recompute::{resolve_needs, RecomputeGraph};

/// One round of the search, for a progress display.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HomeProgress {
    /// Rounds done.
    pub round: usize,
    /// Rounds in all.
    pub rounds: usize,
    /// The best plan's predicted iteration time so far.
    pub best_ns: f64,
    /// Whether that plan fits the budget.
    pub fits: bool,
    /// Whether this is the search's last round: the rounds are done, or
    /// the best plan has not improved for [`Home::stall_rounds`] of them.
    pub last: bool,
}

/// Called after each round of the search.
pub type ProgressFn = Arc<dyn Fn(HomeProgress) + Send + Sync>;

/// The particle swarm planner.
#[derive(Clone)]
pub struct Home {
    /// Particles (500).
    pub particles: usize,
    /// Rounds (500).
    pub rounds: usize,
    /// The search stops once its best plan has not improved for this many
    /// rounds in a row (100; 0: never). Re-plans during warm-up search
    /// again from a new profile, and on GPT-small b4 the best plan of
    /// rounds 100 and 500 was the same while each search took 4-8 s.
    pub stall_rounds: usize,
    /// The random streams' seed: the same seed and profile give the same plan.
    pub seed: u64,
    /// Chance that a tensor takes its action in the round's best particle.
    pub to_round_best: f64,
    /// Chance that it takes its action in the best plan found so far.
    pub to_best: f64,
    /// Chance that it takes its action in the particle's own best plan.
    pub to_own_best: f64,
    /// Chance that it takes a random action.
    pub mutation: f64,
    /// Told after each round.
    pub progress: Option<ProgressFn>,
}

impl Default for Home {
    fn default() -> Self {
        Self {
            particles: 500,
            rounds: 500,
            stall_rounds: 100,
            seed: 0x484f_4d45,
            to_round_best: 0.25,
            to_best: 0.25,
            to_own_best: 0.2,
            mutation: 0.02,
            progress: None,
        }
    }
}

impl fmt::Debug for Home {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Home")
            .field("particles", &self.particles)
            .field("rounds", &self.rounds)
            .field("stall_rounds", &self.stall_rounds)
            .field("seed", &self.seed)
            .finish_non_exhaustive()
    }
}

/// What can happen to one movable tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Keep,
    Swap,
    Compress(Codec),
    Rebuild,
}

/// A plan's score: lower is better, and every plan within the budget beats
/// every plan over it.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd)]
struct Score {
    over_budget: u64,
    time_ns: f64,
    moved_bytes: u64,
}

impl Score {
    const WORST: Score = Score {
        over_budget: u64::MAX,
        time_ns: f64::INFINITY,
        moved_bytes: u64::MAX,
    };
}

struct Particle {
    rng: StdRng,
    position: Vec<u8>,
    best: Vec<u8>,
    best_score: Score,
    score: Score,
}

/// The search space: the movable tensors and each one's choices.
struct Space<'a> {
    evaluator: Evaluator<'a>,
    params: &'a PlanParams,
    /// Decisions for every saved tensor, movable ones at `Keep`.
    base: Vec<Decision>,
    /// For each movable tensor: its index in `base`, and its choices.
    movable: Vec<(usize, &'a TensorProfile, Vec<Choice>)>,
}

impl<'a> Space<'a> {
    fn new(profile: &'a Profile, params: &'a PlanParams, costs: &'a CostModel) -> Self {
        let evaluator =
            Evaluator::with_graph(profile, costs, RecomputeGraph::for_params(profile, params));
        let mut base = Decision::keep_all(profile);
        let mut movable_tensors = Vec::new();
        for (i, t) in profile.saved_tensors().enumerate() {
            // A ReLU input its output stands in for leaves the device at
            // no cost: no particle needs to find that.
            if evaluator.graph().stand_in(t.key).is_some() {
                base[i] = decision(t, Action::Recompute);
                continue;
            }
            if movable(t, params).is_none() {
                continue;
            }
            let mut choices = vec![Choice::Keep, Choice::Swap];
            if let Some(codec) = cheapest_codec(costs, t) {
                choices.push(Choice::Compress(codec));
            }
            if evaluator.graph().can_recompute(t.key) {
                choices.push(Choice::Rebuild);
            }
            movable_tensors.push((i, t, choices));
        }
        Self {
            base,
            evaluator,
            params,
            movable: movable_tensors,
        }
    }

    fn decisions(&self, position: &[u8]) -> Vec<Decision> {
        let mut decisions = self.base.clone();
        for ((i, t, choices), &at) in self.movable.iter().zip(position) {
            decisions[*i] = match choices[at as usize] {
                Choice::Keep => Decision::keep(t.key, t.bytes),
                Choice::Swap => decision(t, Action::Swap),
                Choice::Compress(codec) => Decision {
                    codec: Some(codec),
                    ..decision(t, Action::Swap)
                },
                Choice::Rebuild => decision(t, Action::Recompute),
            };
        }
        resolve_needs(self.evaluator.graph(), &mut decisions);
        schedule_prefetches(
            self.evaluator.profile(),
            self.evaluator.footprint(),
            self.params,
            &mut decisions,
        );
        decisions
    }

    fn evaluate(&self, position: &[u8]) -> (Evaluation, Score) {
        let evaluation = self.evaluator.evaluate(&self.decisions(position));
        let budget = self.params.plan_budget().unwrap_or(u64::MAX);
        let host_budget = self.params.host_budget_bytes.unwrap_or(u64::MAX);
        let score = Score {
            // Over the pinned pool counts as over the budget: the pool
            // refuses those copies and their tensors stay on the device.
            over_budget: evaluation
                .peak_bytes
                .saturating_sub(budget)
                .saturating_add(evaluation.host_peak_bytes.saturating_sub(host_budget)),
            time_ns: evaluation.time.iteration_ns,
            moved_bytes: evaluation.time.to_host_bytes,
        };
        (evaluation, score)
    }

    /// The position of a plan's decisions (a choice it lacks: `Keep`).
    fn position_of(&self, decisions: &[Decision]) -> Vec<u8> {
        self.movable
            .iter()
            .map(|(i, _, choices)| {
                let d = &decisions[*i];
                let choice = match (d.action, d.codec) {
                    (Action::Keep, _) => Choice::Keep,
                    (Action::Swap, None) => Choice::Swap,
                    (Action::Swap, Some(codec)) => Choice::Compress(codec),
                    (Action::Recompute, _) => Choice::Rebuild,
                };
                choices.iter().position(|&c| c == choice).unwrap_or(0) as u8
            })
            .collect()
    }

    /// A position with every tensor at the first of `preferred` it has.
    fn uniform(&self, preferred: &[Choice]) -> Vec<u8> {
        self.movable
            .iter()
            .map(|(_, _, choices)| {
                preferred
                    .iter()
                    .find_map(|p| choices.iter().position(|c| c == p))
                    .unwrap_or(0) as u8
            })
            .collect()
    }
}

/// The codec that makes the tensor's round trip (both copies and both
/// kernels) shortest, if one makes it shorter than moving it as it is: the
/// choice whose accuracy `cost::decision_accuracy` measures.
fn cheapest_codec(costs: &CostModel, t: &TensorProfile) -> Option<Codec> {
    let zeros = t.zero_fraction.unwrap_or(0.0) as f64;
    let options: Vec<_> = Codec::ALL
        .into_iter()
        .filter(|codec| codec.suits(t))
        .filter_map(|codec| Some((codec, costs.codec_cost(codec, &t.dtype, t.bytes, zeros)?)))
        .collect();
    isolated_choice(&costs.link, t.bytes, &options)
}

impl Policy for Home {
    fn name(&self) -> &str {
        "home"
    }

    fn needs_op_times(&self) -> bool {
        true
    }

    fn uses_sparsity(&self) -> bool {
        true
    }

    /// Its compressed copies are chosen on the replayed iteration, as
    /// `cswap`'s are.
    fn checks_codecs_on_device(&self) -> bool {
        true
    }

    /// The baselines it seeds its particles with: where the replay misses
    /// what the device does, one of them can run faster than the plan the
    /// search preferred.
    fn rivals(&self) -> Vec<Arc<dyn Policy>> {
        vec![
            Arc::new(Capuchin),
            Arc::new(SuperNeurons),
            Arc::new(SwapAll),
        ]
    }

    fn plan(&self, profile: &Profile, params: &PlanParams) -> Result<Plan, PlanError> {
        let costs = needs_link_and_op_times(self.name(), profile, params)?;
        let space = Space::new(profile, params, costs);
        let dims = space.movable.len();
        let mut seeds = vec![
            space.uniform(&[Choice::Keep]),
            space.uniform(&[Choice::Swap]),
            space.uniform(&[Choice::Rebuild, Choice::Swap]),
        ];
        let baselines: [&dyn Policy; 3] = [&SwapAll, &SuperNeurons, &Capuchin];
        for baseline in baselines {
            if let Ok(plan) = baseline.plan(profile, params) {
                seeds.push(space.position_of(&plan.decisions));
            }
        }
        let mut particles: Vec<Particle> = (0..self.particles.max(1))
            .map(|n| {
                let mut rng = StdRng::seed_from_u64(
                    self.seed ^ (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                );
                let position = match seeds.get(n) {
                    Some(seed) => seed.clone(),
                    None => space
                        .movable
                        .iter()
                        .map(|(_, _, c)| rng.random_range(0..c.len()) as u8)
                        .collect(),
                };
                Particle {
                    rng,
                    best: position.clone(),
                    position,
                    best_score: Score::WORST,
                    score: Score::WORST,
                }
            })
            .collect();
        let mut best = (Score::WORST, particles[0].position.clone());
        let rounds = self.rounds.max(1);
        let (mut rounds_run, mut improved_at) = (0, 0);
        for round in 0..rounds {
            rounds_run = round + 1;
            particles.par_iter_mut().for_each(|p| {
                p.score = space.evaluate(&p.position).1;
                if p.score < p.best_score {
                    p.best_score = p.score;
                    p.best.clone_from(&p.position);
                }
            });
            // The first of equals wins: the result does not depend on threads.
            let round_best = particles
                .iter()
                .enumerate()
                .min_by(|a, b| {
                    a.1.score
                        .partial_cmp(&b.1.score)
                        .unwrap_or(std::cmp::Ordering::Equal)
                        .then(a.0.cmp(&b.0))
                })
                .map(|(i, _)| i)
                .unwrap_or(0);
            let round_best_position = particles[round_best].position.clone();
            if particles[round_best].score < best.0 {
                best = (particles[round_best].score, round_best_position.clone());
                improved_at = round;
            }
            let stalled = self.stall_rounds > 0 && round - improved_at >= self.stall_rounds;
            let last = dims == 0 || stalled || rounds_run == rounds;
            if let Some(progress) = &self.progress {
                progress(HomeProgress {
                    round: rounds_run,
                    rounds,
                    best_ns: best.0.time_ns,
                    fits: best.0.over_budget == 0,
                    last,
                });
            }
            if last {
                break;
            }
            let best_position = &best.1;
            particles.par_iter_mut().for_each(|p| {
                for d in 0..dims {
                    let r: f64 = p.rng.random();
                    let mut edge = self.to_round_best;
                    if r < edge {
                        p.position[d] = round_best_position[d];
                        continue;
                    }
                    edge += self.to_best;
                    if r < edge {
                        p.position[d] = best_position[d];
                        continue;
                    }
                    edge += self.to_own_best;
                    if r < edge {
                        p.position[d] = p.best[d];
                        continue;
                    }
                    edge += self.mutation;
                    if r < edge {
                        p.position[d] = p.rng.random_range(0..space.movable[d].2.len()) as u8;
                    }
                }
            });
        }
        let decisions = space.decisions(&best.1);
        let (evaluation, _) = space.evaluate(&best.1);
        let tried = format!(
            "a particle swarm over keep, swap, compress then swap and rebuild for {dims} tensors ({} particles, {rounds_run} of {rounds} rounds, seed {})",
            self.particles, self.seed
        );
        let mut plan = finish_plan(
            self,
            profile,
            space.evaluator.footprint(),
            params,
            decisions,
            &tried,
        )?;
        plan.predicted = Some(evaluation.time);
        Ok(plan)
    }
}
