//! Tests run ahead on several executors at once (speculative tests): the candidates the reducer predicts, spread over the lanes, each outcome kept for the serial run that asks for it.
//!
//! Lane 0 runs everything the reducer asks for that was not run ahead (the
//! first runs of the crash, the re-check, a success's follow-up moves); the
//! others only run ahead. Each lane is a whole executor of its own (a fork
//! server, or a scratch file for a command), so lanes share nothing.

use std::collections::HashMap;

use super::{Executor, Outcome};
use crate::reduce::Example;

/// Several executors, one per lane, seen as one.
pub struct Lanes<E> {
    lanes: Vec<E>,
    /// Outcomes of the inputs run ahead, with the examples each run recorded.
    ready: HashMap<Vec<u8>, (Outcome, Vec<Example>)>,
    /// The examples of the run that `run` returned last.
    examples: Vec<Example>,
}

impl<E: Executor + Send> Lanes<E> {
    /// One lane: runs one test at a time until [`Lanes::add`] adds more.
    pub fn new(first: E) -> Self {
        Lanes { lanes: vec![first], ready: HashMap::new(), examples: Vec::new() }
    }

    /// Adds a lane.
    pub fn add(&mut self, lane: E) {
        self.lanes.push(lane);
    }

    /// The first lane, which runs everything not run ahead.
    pub fn first(&mut self) -> &mut E {
        &mut self.lanes[0]
    }
}

impl<E> std::fmt::Debug for Lanes<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lanes").field("width", &self.lanes.len()).field("ready", &self.ready.len()).finish()
    }
}

impl<E: Executor + Send> Executor for Lanes<E> {
    fn run(&mut self, input: &[u8]) -> anyhow::Result<Outcome> {
        if let Some((outcome, examples)) = self.ready.remove(input) {
            self.examples = examples;
            return Ok(outcome);
        }
        let lane = &mut self.lanes[0];
        let outcome = lane.run(input)?;
        self.examples = lane.examples();
        Ok(outcome)
    }

    fn examples(&self) -> Vec<Example> {
        self.examples.clone()
    }

    fn width(&self) -> usize {
        self.lanes.len()
    }

    /// Runs `inputs` across the lanes (input `i` on lane `i % width`), all
    /// lanes at once, and waits for them. What was run ahead before and not
    /// asked for is dropped. A run that fails is not kept: the serial run
    /// runs it again on lane 0 and meets the error there.
    fn prefetch(&mut self, inputs: &[Vec<u8>]) {
        self.ready.clear();
        let width = self.lanes.len();
        let (first, rest) = self.lanes.split_first_mut().expect("at least one lane");
        let done = std::thread::scope(|scope| {
            let others: Vec<_> = rest
                .iter_mut()
                .enumerate()
                .map(|(i, lane)| scope.spawn(move || run_share(lane, inputs, i + 1, width)))
                .collect();
            let mut done = run_share(first, inputs, 0, width);
            for other in others {
                done.extend(other.join().unwrap_or_default());
            }
            done
        });
        for (i, outcome, examples) in done {
            self.ready.insert(inputs[i].clone(), (outcome, examples));
        }
    }
}

/// Lane `lane`'s share of `inputs`: every `width`-th one from `lane`, with
/// its index, outcome and examples.
fn run_share<E: Executor>(
    executor: &mut E,
    inputs: &[Vec<u8>],
    lane: usize,
    width: usize,
) -> Vec<(usize, Outcome, Vec<Example>)> {
    let mut done = Vec::new();
    for (i, input) in inputs.iter().enumerate().skip(lane).step_by(width) {
        if let Ok(outcome) = executor.run(input) {
            done.push((i, outcome, executor.examples()));
        }
    }
    done
}
