#pragma once
// The schedule: every decision the sim loop makes at an epoch boundary, as a plain class
// with no actors in it (actors/SCHEDULE.md). Given the plan, the live commands received
// so far and the wall clock, it says what happens next at the boundary where the next
// epoch would start: start a trial, write a checkpoint, apply a command (a swap, a
// stimulus change, pause, stop: scripted, replayed from a journal or live), issue the
// epoch, wait for the pace, or nothing more (paused, stopped, done). The sim loop actor
// only turns these answers into messages.
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "messages/control.hpp"

namespace flysim {

// A place in a run: trial and step within it. Ordered as the run goes. With batches of
// trials (run.batch) the trial is the batch's first: the run goes batch by batch.
struct RunPosition {
  int32_t trial = 0;
  int32_t step = 0;
  friend auto operator<=>(const RunPosition&, const RunPosition&) = default;
};

// A command fixed to a boundary: scripted (run.swap-at), replayed from a journal, or a
// live one once the schedule has placed it. The journal is a list of these.
struct PlacedCommand {
  RunPosition at;
  LiveCommand command;
};

// The plan's geometry, as the schedule needs it.
struct ScheduleGeometry {
  int32_t trials = 1;
  int32_t steps_per_trial = 0;
  int32_t delay_steps = 18;
  double dt_ms = 0.1;
  RunPosition start;                // (0, 0) or a restored checkpoint's position
  int32_t checkpoint_granularity = 18;  // a delay cell, or a plasticity period
  int32_t batch = 1;                // trials advanced together (run.batch)
  // An epoch may cross delay cells, up to the pace batch of simulation in a paced run and
  // kUnpacedBatchMs in an unpaced one, when nothing needs the spikes cell by cell (false
  // with plasticity: the shards learn per epoch).
  bool epochs_cross_cells = false;
};

// Trials in the batch that starts at `first_trial`: batch, or what is left of the plan.
int32_t batch_size_at(int32_t first_trial, const ScheduleGeometry& g);
// Simulated steps of all trials together from (0, 0) to p (the batch at p included).
int64_t simulated_steps_to(const RunPosition& p, const ScheduleGeometry& g);

// Converts simulated time since the start of the run (all batches in a row) to the first
// boundary (a multiple of `granularity` steps) at or after it, never step 0 of a trial.
RunPosition position_at_ms(double ms, const ScheduleGeometry& g, int32_t granularity);
// True when a run reaches p (it lies inside a trial and after the start).
bool reached(const RunPosition& p, const ScheduleGeometry& g);
// Steps from (0, 0) to p, batch after batch.
int64_t steps_to(const RunPosition& p, const ScheduleGeometry& g);
// The checkpoint positions of `every_ms` (0: none), on `g.checkpoint_granularity`.
std::vector<RunPosition> checkpoint_positions(double every_ms, const ScheduleGeometry& g);

class Schedule {
 public:
  // `pace`: simulated seconds per wall second, 0 for as fast as possible.
  // `pace_batch_ms`: the pace batch (run.pace-batch-ms), see kDefaultPaceBatchMs.
  Schedule(ScheduleGeometry geometry, std::vector<RunPosition> checkpoints, std::vector<PlacedCommand> placed, double pace,
           double pace_batch_ms = kDefaultPaceBatchMs);

  struct Action {
    enum class Kind {
      start_trial,  // start the trial (batch) at `at` at rest in the engine
      checkpoint,   // a scripted checkpoint at `at`
      command,      // apply `command` at `at` (its id: `live_id`, 0 for scripted/replayed)
      epoch,        // advance through [at.step, at.step + steps): one delay cell, or in a
                    // run without plasticity up to the pace batch (paced) or
                    // kUnpacedBatchMs of them, stopping at any boundary
                    // where something else happens
      wait,         // nothing before wall time `until_s` (the pace)
      idle,         // paused, or stopped: nothing until something changes
      done,         // the plan is complete
    };
    Kind kind = Kind::done;
    RunPosition at;
    int32_t steps = 0;
    LiveCommand command;
    uint64_t live_id = 0;
    double until_s = 0.0;
  };

  // What happens next at `issued` (the next epoch's first step), at wall time `now_s`.
  // Taking an action commits to it: call again for the one after.
  Action next(RunPosition issued, double now_s);

  // A live command; it is placed at the first boundary where it can apply (a checkpoint
  // with plasticity waits for a period boundary) and comes back from next() there.
  // `id` lets the caller answer it (non-zero). The boundary chosen is the `at` of the
  // action that hands it back; the caller journals it (the schedule keeps no copy: a
  // service receives commands without end).
  void receive(LiveCommand command, uint64_t id);

  // Effects of commands, applied by the caller when it applies the command.
  void pause(double now_s);
  void resume(RunPosition done, double now_s);
  void stop() { stopped_ = true; }
  bool paused() const { return paused_; }
  // Wall seconds spent paused up to `now_s`, the current pause included.
  double paused_s(double now_s) const { return paused_total_s_ + (paused_ ? now_s - paused_since_s_ : 0.0); }
  bool stopped() const { return stopped_; }

  // How far the simulation is behind the pace at `done`, in ms (0 when unpaced or paused).
  double lag_ms(RunPosition done, double now_s) const;
  double pace() const { return pace_; }
  const ScheduleGeometry& geometry() const { return g_; }

  // The pace batch (run.pace-batch-ms, default 10 ms): the pace lets an epoch start up to
  // two batches of simulated time ahead of the wall clock. When it says wait, it waits
  // until a batch more is allowed, so a realtime run wakes about every 10 ms for a batch
  // of epochs, not once per 1.8 ms epoch: fewer wake-ups are what keeps the host cost of
  // a paced CUDA run low. A woken batch still starts a batch ahead of the wall clock, so
  // waiting adds no lag. Without plasticity the batch goes to the engine as one epoch
  // across its cells (ScheduleGeometry::epochs_cross_cells): one request, one reply, one
  // recorder message per batch. A larger batch costs the host less and runs further
  // ahead of the wall clock; it never changes a spike.
  static constexpr double kDefaultPaceBatchMs = 10.0;
  // An unpaced run without plasticity asks the engine for up to this much at once: the
  // CUDA engine then runs its cells as rounds and launches each round while the host
  // records the one before (Engine::advance_cells), and the sim loop, the engine actor and
  // the recorder handle one message per 200 ms instead of one per 1.8 ms cell.
  static constexpr double kUnpacedBatchMs = 200.0;

 private:
  bool at_checkpoint_boundary(RunPosition p) const;
  // The wall time at which the pace lets an epoch start at p.
  double allowed_at_s(RunPosition p) const;
  // The end step of the epoch that starts at `issued` (see Action::Kind::epoch).
  int32_t epoch_end(RunPosition issued, double now_s) const;
  // True when something other than an epoch may happen at or before p: a checkpoint, a
  // placed command, or a live command still waiting (for a period boundary).
  bool boundary_is_busy(RunPosition p) const;
  ScheduleGeometry g_;
  std::vector<RunPosition> checkpoints_;
  std::size_t next_checkpoint_ = 0;
  std::deque<PlacedCommand> placed_;  // scripted and replayed, by position
  struct Waiting {
    LiveCommand command;
    uint64_t id;
  };
  std::deque<Waiting> live_;
  bool trial_started_ = false;
  bool paused_ = false, stopped_ = false;
  double paused_since_s_ = 0.0, paused_total_s_ = 0.0;
  double pace_ = 0.0;
  double pace_batch_ms_ = kDefaultPaceBatchMs;
  // Pacing: simulated steps at anchor_steps_ happen at wall time anchor_s_ (reset on resume).
  double anchor_s_ = 0.0;
  int64_t anchor_steps_ = 0;
  bool anchored_ = false;
};

}  // namespace flysim
