"""The Python module flysim (python/flysim) against the flysim program and the reference
model's conventions. Run by CTest as python.module (under pytest when it is installed); by hand:
    PYTHONPATH=build/python FLYSIM_BINARY=build/flysim /usr/bin/python3 -m pytest tests/python/test_flysim.py
or, without pytest, /usr/bin/python3 tests/python/test_flysim.py
"""
import contextlib
import csv
import io
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd

import flysim

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("FLYSIM_TEST_DATA", HERE.parent / "data"))
BINARY = os.environ.get("FLYSIM_BINARY", str(HERE.parent.parent / "build" / "flysim"))
NET = DATA / "net2000"
NEURONS, CONNECTIVITY = NET / "neurons.csv", NET / "connectivity.csv"
STIMULATED = [int(line) for line in (NET / "stimulated.txt").read_text().split() if line.strip() and line[0] != "#"]


def load():
    return flysim.load_network(NEURONS, CONNECTIVITY)


def spike_rows(result):
    """(trial, step, root ID) of each spike of a run."""
    return list(zip(result.spikes["trial"].tolist(), result.step.tolist(), result.spikes["flywire_id"].tolist()))


def cli_spike_rows(options):
    """(trial, step, root ID) of each spike of `flysim run` with `options`."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "spikes.csv"
        args = [BINARY, "run", f"--network.neurons={NEURONS}", f"--network.connectivity={CONNECTIVITY}",
                f"--output.spikes={out}", "--log.level=warn"]
        for key, value in options.items():
            if isinstance(value, list):  # an ID list: written to a file, as the program reads them
                path = Path(tmp) / f"{key}.txt"
                path.write_text("".join(f"{i}\n" for i in value))
                value = path
            args.append(f"--{key}={value}")
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return [(int(r["trial"]), int(r["step"]), int(r["neuron_id"])) for r in csv.DictReader(f)]


class VersionTest(unittest.TestCase):
    def test_the_module_is_the_build_the_program_names(self):
        printed = subprocess.run([BINARY, "version"], check=True, capture_output=True, text=True).stdout
        self.assertEqual(printed, f"flysim {flysim.BUILD_VERSION}\n")
        self.assertEqual(flysim.__version__, flysim.BUILD_VERSION.split(" ")[0])
        self.assertRegex(flysim.__version__, r"^[0-9]+\.[0-9]+\.[0-9]+$")


class NetworkTest(unittest.TestCase):
    def test_ids_and_index_of_follow_the_neurons_file(self):
        net = load()
        rows = [line.split(",")[0] for line in NEURONS.read_text().splitlines()[1:]]
        self.assertEqual(len(net), 2000)
        self.assertEqual(net.ids.dtype, np.int64)
        self.assertEqual(net.ids.tolist(), [int(r) for r in rows])
        picked = [int(rows[17]), int(rows[3]), int(rows[1999])]
        np.testing.assert_array_equal(net.index_of(picked), [17, 3, 1999])
        np.testing.assert_array_equal(net.index_of(np.array(picked)), [17, 3, 1999])

    def test_an_unknown_root_id_is_a_value_error_naming_it(self):
        net = load()
        with self.assertRaisesRegex(ValueError, "root ID 12345 .*not in the network"):
            net.index_of([STIMULATED[0], 12345])
        with self.assertRaisesRegex(ValueError, "stimulus group 'bitter'.*neuron ID 999 is not in the network"):
            flysim.run(net, stimulus={"bitter": ([999], 100.0)}, trials=1, duration_ms=10)
        with self.assertRaisesRegex(ValueError, "silence, item 1: neuron ID 7 "):
            flysim.run(net, stimulus={"s": (STIMULATED, 100.0)}, silence=[STIMULATED[0], 7], trials=1, duration_ms=10)


    def test_an_edge_lists_options_give_the_programs_network(self):
        with tempfile.TemporaryDirectory() as tmp:
            edges = Path(tmp) / "edges.csv"
            with open(CONNECTIVITY) as f:
                rows = list(csv.DictReader(f))
            edges.write_text("".join(f"{r['Presynaptic_ID']},{r['Postsynaptic_ID']},{r['Connectivity']}\n" for r in rows))
            net = flysim.load_network(None, edges, format="edgelist", seed=3, inhibitory_fraction=0.2, cache=False)
            stim = {"s": (STIMULATED[:30], 150.0)}
            ours = spike_rows(flysim.run(net, stimulus=stim, trials=1, duration_ms=100))
            out, ids = Path(tmp) / "spikes.csv", Path(tmp) / "ids.txt"
            ids.write_text("".join(f"{i}\n" for i in STIMULATED[:30]))
            subprocess.run([BINARY, "run", "--network.format=edgelist", f"--network.connectivity={edges}",
                            "--network.seed=3", "--network.inhibitory-fraction=0.2", "--network.cache=false",
                            f"--stimulus.ids={ids}", "--stimulus.rate=150", "--run.duration-ms=100",
                            f"--output.spikes={out}", "--log.level=warn"], check=True, stdout=subprocess.DEVNULL)
            with open(out) as f:
                theirs = [(int(r["trial"]), int(r["step"]), int(r["neuron_id"])) for r in csv.DictReader(f)]
            self.assertGreater(len(ours), 0)
            self.assertEqual(ours, theirs)
            other = flysim.load_network(None, edges, format="edgelist", seed=3, inhibitory_fraction=0.5, cache=False)
            self.assertNotEqual(spike_rows(flysim.run(other, stimulus=stim, trials=1, duration_ms=100)), ours)
            with self.assertRaisesRegex(ValueError, "seed=-1 must lie in 0"):
                flysim.load_network(None, edges, format="edgelist", seed=-1)
            with self.assertRaisesRegex(TypeError, "cache='no' must be True or False"):
                flysim.load_network(None, edges, format="edgelist", cache="no")

    def test_root_ids_come_as_sets_and_columns_not_as_masks_or_tables(self):
        net = load()
        picked = [STIMULATED[4], STIMULATED[1]]
        np.testing.assert_array_equal(net.index_of(set(picked)), net.index_of(sorted(picked)))
        np.testing.assert_array_equal(net.index_of(dict.fromkeys(picked).keys()), net.index_of(sorted(picked)))
        np.testing.assert_array_equal(net.index_of(iter(picked)), net.index_of(picked))
        np.testing.assert_array_equal(net.index_of(pd.DataFrame({"id": picked})), net.index_of(picked))
        with self.assertRaisesRegex(TypeError, "not booleans"):
            net.index_of(np.ones(len(net), dtype=bool))
        with self.assertRaisesRegex(ValueError, r"one list \(or one column\), not an array of shape \(2, 2\)"):
            net.index_of([picked, picked])


class RunTest(unittest.TestCase):
    def test_two_groups_and_silencing_give_the_programs_spikes(self):
        net = load()
        a, b, silenced = STIMULATED[:10], STIMULATED[10:], STIMULATED[:3]
        result = flysim.run(net, stimulus={"a": (a, 150.0), "b": (b, 80.0)}, silence=silenced, duration_ms=100,
                            trials=2, seed=3, threads=2)
        cli = cli_spike_rows({"stimulus.ids": a, "stimulus.rate": 150, "stimulus.group.b.ids": b,
                              "stimulus.group.b.rate": 80, "stimulus.silence": silenced, "run.trials": 2,
                              "run.duration-ms": 100, "run.seed": 3})
        self.assertGreater(len(cli), 100)
        self.assertEqual({r[0] for r in cli}, {0, 1})
        self.assertEqual(spike_rows(result), cli)
        np.testing.assert_allclose(result.spikes["t"], result.step * 1e-4)
        # Silencing changes the spikes: the comparison above saw it applied.
        unsilenced = flysim.run(net, stimulus={"a": (a, 150.0), "b": (b, 80.0)}, duration_ms=100, trials=2, seed=3)
        self.assertNotEqual(spike_rows(unsilenced), cli)

    def test_screen_gives_the_programs_tables(self):
        net = load()
        silenced = STIMULATED[:2]
        experiments = {"baseline": {}, "slow": {"stimulus": {"a": (STIMULATED, 60.0)}},
                       "silenced": {"silence": silenced}}
        common = {"stimulus": {"a": (STIMULATED, 150.0)}, "trials": 3, "duration_ms": 100, "threads": 2}
        with self.assertLogs("flysim", level="INFO") as logs:
            res = flysim.screen(net, experiments, readouts=[STIMULATED[5]], spikes=True, **common)
        self.assertIn("screen: 3 of 3 experiments done", "\n".join(logs.output))
        with tempfile.TemporaryDirectory() as tmp:
            table = Path(tmp) / "experiments.csv"
            (Path(tmp) / "silenced.txt").write_text("".join(f"{i}\n" for i in silenced))
            table.write_text("name,rate_hz,silence\nbaseline,,\nslow,60,\nsilenced,,@silenced.txt\n")
            ids = Path(tmp) / "ids.txt"
            ids.write_text("".join(f"{i}\n" for i in STIMULATED))
            subprocess.run([BINARY, "screen", f"--network.neurons={NEURONS}", f"--network.connectivity={CONNECTIVITY}",
                            f"--stimulus.ids={ids}", "--stimulus.rate=150", f"--screen.experiments={table}",
                            "--run.trials=3", "--run.duration-ms=100", f"--screen.readouts={STIMULATED[5]}",
                            "--screen.spikes=true", "--screen.plot=false", f"--output.dir={tmp}/out", "--log.level=warn"],
                           check=True, stdout=subprocess.DEVNULL)
            cli_rates = flysim.read_csv(f"{tmp}/out/rates.csv")
            cli_readouts = flysim.read_csv(f"{tmp}/out/readouts.csv")
            cli_spikes = flysim.read_csv(f"{tmp}/out/spikes.csv")
        # The program's files and the Python tables hold the same numbers, to the last bit.
        pd.testing.assert_frame_equal(res.rates, cli_rates)
        pd.testing.assert_frame_equal(res.readouts, cli_readouts)
        pd.testing.assert_frame_equal(res.spikes, cli_spikes)
        self.assertTrue((res.spikes["t"] == res.results["baseline"].step[0] * 1e-4).any())  # Brian2's t = step * dt
        self.assertNotEqual(res.results["slow"].summary["spikes"], res.results["baseline"].summary["spikes"])
        with self.assertRaises(ValueError):
            flysim.screen(net, [("a", {}), ("a", {})], trials=1, duration_ms=10)
        with self.assertRaisesRegex(TypeError, "^spikes='yes' must be True or False"):
            flysim.screen(net, {"baseline": {}}, spikes="yes", trials=1, duration_ms=10)
        # This network has no MN9: the default readout is skipped, and the log says so.
        with self.assertLogs("flysim", level="WARNING") as logs:
            quiet = flysim.screen(net, {"baseline": {}}, stimulus={"a": (STIMULATED, 150.0)}, trials=1, duration_ms=10)
        self.assertIn(f"the default readout (MN9, {flysim.MN9}) is not in this network", "\n".join(logs.output))
        self.assertEqual(len(quiet.readouts), 0)

    def test_screen_on_several_engines_at_once_gives_each_experiments_run(self):
        net = load()
        experiments = [(f"r{rate}", {"stimulus": {"a": (STIMULATED, float(rate))}}) for rate in (90, 120, 150)]
        experiments += [("silenced", {"silence": STIMULATED[:4]}), ("two groups",
                        {"stimulus": {"a": (STIMULATED[:12], 150.0), "b": (STIMULATED[12:], 70.0)}})]
        common = {"stimulus": {"a": (STIMULATED, 150.0)}, "trials": 3, "duration_ms": 60, "threads": 1, "seed": 4}
        alone = {name: flysim.run(net, **{**common, **kw}) for name, kw in experiments}
        for engines in (1, 2, 3):
            res = flysim.screen(net, experiments, engines=engines, **common)
            self.assertEqual(list(res.results), [name for name, _ in experiments])
            for name, _ in experiments:
                self.assertEqual(spike_rows(res.results[name]), spike_rows(alone[name]), f"{name}, {engines} engines")
                if engines > 1:  # each ran on one of `engines` engines at once
                    self.assertRegex(res.results[name].summary["engine"], f", engine [1-{engines}] of {engines}$")
        self.assertGreater(len(spike_rows(alone["r150"])), len(spike_rows(alone["r90"])))
        # A second screen takes the engines the first built.
        again = flysim.screen(net, experiments, engines=3, **common)
        self.assertTrue(all(r.summary["engine_reused"] for r in again.results.values()))
        # Experiments that differ in more than their stimulus run one after the other, with the same spikes.
        mixed = flysim.screen(net, [("short", {"duration_ms": 30}), ("r90", experiments[0][1])], engines=2, **common)
        self.assertEqual(spike_rows(mixed.results["r90"]), spike_rows(alone["r90"]))
        with self.assertRaisesRegex(ValueError, "experiment 'bad': .*neuron ID 999 is not in the network"):
            flysim.screen(net, [("ok", {}), ("bad", {"silence": [999]})], engines=2, **common)
        with self.assertRaisesRegex(TypeError, "experiment 'typo'"):
            flysim.screen(net, [("typo", {"trails": 3})], **common)
        with self.assertRaisesRegex(ValueError, "engines=0 must lie in 1..64"):
            flysim.screen(net, experiments, engines=0, **common)

    def test_kicks_file_and_batches_give_the_programs_spikes(self):
        net = load()
        # The file holds kicks over a second: those after 50 ms are named, as the program names them.
        with self.assertLogs("flysim", "WARNING") as logs:
            result = flysim.run(net, kicks=NET / "kicks.csv", duration_ms=50, trials=3, batch=2, seed=5)
        self.assertEqual(logs.output, ["WARNING:flysim:kicks: 11398 kicks at step 500 or later fall after the end of a "
                                       "trial (500 steps) and do nothing"])
        cli = cli_spike_rows({"stimulus.kicks": NET / "kicks.csv", "run.trials": 3, "run.duration-ms": 50,
                              "run.seed": 5})
        self.assertGreater(len(cli), 0)
        self.assertEqual(result.summary["batch"], 2)
        self.assertEqual(spike_rows(result), cli)
        auto = flysim.run(net, kicks=NET / "kicks.csv", duration_ms=50, trials=3, batch="auto", seed=5)
        self.assertEqual(spike_rows(auto), cli)  # "auto", as the CLI's run.batch takes it

    def test_a_kicks_dataframe_is_the_kicks_file(self):
        net = load()
        table = pd.read_csv(NET / "kicks.csv")
        from_table = flysim.run(net, kicks=table, duration_ms=50, trials=2)
        from_file = flysim.run(net, kicks=NET / "kicks.csv", duration_ms=50, trials=2)
        self.assertGreater(len(from_table.spikes), 0)
        self.assertEqual(spike_rows(from_table), spike_rows(from_file))

    def test_engines_of_the_last_settings_are_kept_and_can_be_released(self):
        net = load()
        stim = {"a": (STIMULATED, 150.0)}
        first = flysim.run(net, stimulus=stim, duration_ms=20, trials=2, seed=1)
        for seed in range(2, 8):
            flysim.run(net, stimulus=stim, duration_ms=20, trials=2, seed=seed)
        self.assertEqual(net.kept_engines, flysim._flysim.KEPT_SETTINGS)
        net.release_engines()
        self.assertEqual(net.kept_engines, 0)
        again = flysim.run(net, stimulus=stim, duration_ms=20, trials=2, seed=1)
        self.assertFalse(again.summary["engine_reused"])
        self.assertEqual(spike_rows(again), spike_rows(first))

    def test_empty_tables_keep_their_types(self):
        net = load()
        res = flysim.screen(net, {"quiet": {"stimulus": {}}}, readouts=[STIMULATED[0]], spikes=True, trials=2,
                            duration_ms=10)
        self.assertEqual(len(res.rates), 0)
        self.assertEqual(res.rates["exp_name"].dtype, object)
        self.assertEqual(res.rates["flywire_id"].dtype, np.int64)
        self.assertEqual(res.readouts["readout_id"].dtype, np.int64)
        self.assertEqual(res.readouts["mean_rate_hz"].tolist(), [0.0])
        none = flysim.screen(net, {}, readouts=[])
        self.assertEqual((none.readouts["readout_id"].dtype, none.readouts["trials"].dtype), (np.int64, np.int64))

    def test_a_kept_engine_changes_its_stimulus_like_a_new_one(self):
        first, second = load(), load()
        groups = {"a": (STIMULATED, 120.0)}
        first_silenced = flysim.run(first, stimulus=groups, silence=STIMULATED[:5], duration_ms=60, trials=2)
        kept = flysim.run(first, stimulus=groups, duration_ms=60, trials=2)
        fresh = flysim.run(second, stimulus=groups, duration_ms=60, trials=2)
        self.assertFalse(first_silenced.summary["engine_reused"])
        self.assertTrue(kept.summary["engine_reused"])
        self.assertFalse(fresh.summary["engine_reused"])
        self.assertNotEqual(spike_rows(first_silenced), spike_rows(fresh))
        self.assertEqual(spike_rows(kept), spike_rows(fresh))

    def test_rates_of_gives_readouts_silent_ones_at_zero(self):
        net = load()
        res = flysim.run(net, stimulus={"a": (STIMULATED, 150.0)}, trials=3, duration_ms=100)
        spiking = int(res.rates["flywire_id"][0])
        silent = int(np.setdiff1d(net.ids, res.rates["flywire_id"])[0])
        table = res.rates_of([silent, spiking])
        self.assertEqual(table["flywire_id"].tolist(), [silent, spiking])
        self.assertEqual(table["mean_rate_hz"][0], 0.0)
        self.assertEqual(table["mean_rate_hz"][1], res.rates["mean_rate_hz"][0])
        self.assertEqual(table["sd_hz"][1], res.rates["sd_hz"][0])
        self.assertEqual(res.rates_of(spiking)["trials"].tolist(), [3])
        with self.assertRaisesRegex(flysim.InputError, "^rates_of: root ID 12345"):
            res.rates_of([12345])

    def test_rates_are_the_spike_counts_per_trial(self):
        net = load()
        trials, duration_ms = 4, 80
        result = flysim.run(net, stimulus={"a": (STIMULATED, 150.0)}, duration_ms=duration_ms, trials=trials)
        counts = pd.crosstab(result.spikes["flywire_id"], result.spikes["trial"]).reindex(
            columns=range(trials), fill_value=0)
        per_trial = counts / (duration_ms / 1000)
        rates = result.rates.set_index("flywire_id")
        self.assertEqual(rates.index.tolist(), per_trial.index.tolist())
        self.assertTrue((per_trial == 0).any(axis=None), "some neuron is silent in some trial")
        np.testing.assert_allclose(rates["mean_rate_hz"], per_trial.mean(axis=1))
        np.testing.assert_allclose(rates["sd_hz"], per_trial.std(axis=1, ddof=1))
        self.assertEqual(result.summary["spikes"], len(result.spikes))
        self.assertEqual(result.summary["active_neurons"], len(rates))

    def test_summary_duration_is_the_decimal_asked_for(self):
        # 1006 steps of 0.1 ms are 100.60000000000001 ms in binary; the summary reports 100.6,
        # as the program's summary does.
        result = flysim.run(load(), stimulus={"a": (STIMULATED, 150.0)}, duration_ms=100.6, trials=1)
        self.assertEqual(result.summary["duration_ms"], 100.6)

    def test_bad_arguments_are_errors_naming_them(self):
        net = load()
        with self.assertRaisesRegex(ValueError, r"model\['w_syn'\] is not a model parameter"):
            flysim.run(net, model={"w_syn": 0.3}, trials=1, duration_ms=10)
        with self.assertRaisesRegex(ValueError, "silence_mode='none'"):
            flysim.run(net, stimulus={"a": (STIMULATED, 1.0)}, silence_mode="none", trials=1, duration_ms=10)
        with self.assertRaisesRegex(ValueError, "neuron ID .* is in stimulus groups 'a' and 'b'"):
            flysim.run(net, stimulus={"a": (STIMULATED[:5], 1.0), "b": (STIMULATED[4:], 1.0)}, trials=1, duration_ms=10)
        with self.assertRaisesRegex(ValueError, "duration_ms"):
            flysim.run(net, stimulus={"a": (STIMULATED, 1.0)}, trials=1, duration_ms=0)
        with self.assertRaisesRegex(flysim.InputError, r"^the default stimulus \(FlyWire 783's sugar neurons; .*stimulus=\{\} for none\): "
                                    r"root ID 720575940611875570 \(item 0\) is not in the network"):
            flysim.run(net, trials=1, duration_ms=10)
        with self.assertRaisesRegex(ValueError, "network.format: 'bogus' is not one of flywire edgelist"):
            flysim.load_network(neurons=NEURONS, connectivity=CONNECTIVITY, format="bogus")
        # Wrong types and ranges are named, never passed on to be rounded or dumped by the binding.
        stim = {"a": (STIMULATED, 1.0)}
        for kwargs, error, message in (({"trials": 1.5}, TypeError, "trials=1.5 must be an integer"),
                                       ({"trials": True}, TypeError, "trials=True must be an integer, not bool"),
                                       ({"seed": 2**63}, ValueError, r"seed=9223372036854775808 must lie in 0\.\.9223372036854775807"),
                                       ({"threads": 2**40}, ValueError, "threads=1099511627776 must lie in 1..1024"),
                                       ({"duration_ms": None}, TypeError, "duration_ms=None must be a number"),
                                       ({"silence": [8.2e17]}, TypeError, "silence: root IDs must be integers, not floats"),
                                       ({"kicks": [(3, 8.2e17)]}, TypeError, r"kicks: item 0: root ID 8\.2e\+17 must be an integer, not float"),
                                       ({"kicks": [(3.7, STIMULATED[0])]}, TypeError, "kicks: item 0: step 3.7 must be an integer"),
                                       ({"kicks": pd.DataFrame({"step": [1]})}, ValueError, "kicks: .*lacks neuron_id"),
                                       ({"kicks": [(3, STIMULATED[0]), (4, STIMULATED[0]), (3, STIMULATED[0])]}, ValueError,
                                        r"kicks: item 2: neuron \d+ is kicked twice at step 3 \(first at kicks: item 0;"),
                                       ({"stimulus": {"a b": (STIMULATED, 1.0)}}, ValueError, "stimulus group name 'a b'"),
                                       ({"model": [1]}, TypeError, "model must be a dict")):
            with self.subTest(**{k: repr(v) for k, v in kwargs.items()}):
                with self.assertRaisesRegex(error, message):
                    flysim.run(net, **{"stimulus": stim, "trials": 1, "duration_ms": 10, **kwargs})
        with self.assertRaisesRegex(ValueError, "readouts: root ID .* is listed twice"):
            flysim.screen(net, {"a": {}}, readouts=[STIMULATED[0], STIMULATED[0]], stimulus=stim, trials=1, duration_ms=10)
        # An iterator shared by the experiments is read for each of them.
        driven = {"s": (STIMULATED, 150.0)}
        listed = flysim.screen(net, {"a": {}, "b": {}}, readouts=[], stimulus=driven, trials=1, duration_ms=100,
                               silence=STIMULATED[:10], spikes=True)
        iterated = flysim.screen(net, {"a": {}, "b": {}}, readouts=[], stimulus=driven, trials=1, duration_ms=100,
                                 silence=iter(STIMULATED[:10]), spikes=True)
        pd.testing.assert_frame_equal(listed.spikes, iterated.spikes)
        unsilenced = flysim.run(net, stimulus=driven, trials=1, duration_ms=100)
        self.assertNotEqual(len(unsilenced.spikes), len(listed.results["b"].spikes))  # the silencing shows
        with self.assertRaisesRegex(TypeError, r"^screen\(\) got an unexpected keyword argument 'trial' "):
            flysim.screen(net, {"a": {}}, readouts=[], stimulus=stim, trial=2, duration_ms=10)
        # Unknown root IDs and bad rates are named by the argument that holds them.
        unknown = 12345
        with self.assertRaisesRegex(flysim.InputError, "^kicks: root ID 12345 .*not in the network"):
            flysim.run(net, stimulus=stim, kicks=[(3, unknown)], trials=1, duration_ms=10)
        with self.assertRaisesRegex(flysim.InputError, r"^readouts: root ID 12345 \(item 1\) is not in the network"):
            flysim.screen(net, {"a": {}}, readouts=[STIMULATED[5], unknown], stimulus=stim, trials=1, duration_ms=10)
        with self.assertRaisesRegex(ValueError, r"^stimulus\['a'\]: no root IDs"):  # as flysim run's empty ID list
            flysim.run(net, stimulus={"a": ([], 50.0)}, trials=1, duration_ms=10)
        with self.assertRaisesRegex(flysim.InputError, "^experiment 'k': kicks: root ID 12345 "):
            flysim.screen(net, {"k": {"kicks": [(3, unknown)]}}, readouts=[], stimulus=stim, trials=1, duration_ms=10)
        with self.assertRaisesRegex(flysim.InputError, r"^stimulus group 'a': stimulus rate must be between 0 and 1/dt \(10000 Hz\), got 20000 Hz"):
            flysim.run(net, stimulus={"a": (STIMULATED, 20000.0)}, trials=1, duration_ms=10)
        with tempfile.TemporaryDirectory() as tmp:
            with self.assertRaisesRegex(flysim.InputError, "^neu_slnc: root ID 12345 "):
                flysim.run_exp("bad", STIMULATED[:3], tmp, NEURONS, CONNECTIVITY, neu_slnc=[unknown])
            self.assertEqual(os.listdir(tmp), [])
        # run_exp's own arguments are named as the reference names them, before anything runs.
        for kwargs, error, message in (({"n_proc": 0}, ValueError, "n_proc=0 must lie in 1..1024"),
                                       ({"params": {"n_run": 2.5}}, TypeError, r"params\['n_run'\]=2.5 must be an integer"),
                                       ({"params": {"t_run": 0}}, ValueError, r"params\['t_run'\] \(s\)=0.0 must be above 0"),
                                       ({"params": {"r_poi": -1}}, ValueError, r"params\['r_poi'\]=-1.0 Hz must be 0 or more"),
                                       ({"params": {"r_poi": "150"}}, TypeError, r"params\['r_poi'\]='150' must be a number"),
                                       # plain numbers meant in mV or ms
                                       ({"params": {"w_syn": 0.275}}, ValueError,
                                        r"params\['w_syn'\]=0.275 is a plain number, read in SI units: 275 mV. Give 0.275\*mV"),
                                       ({"params": {"v_th": -45}}, ValueError, r"params\['v_th'\]=-45 is a plain number"),
                                       ({"params": {"tau": 5}}, ValueError, r"params\['tau'\]=5 is a plain number, .*5000 ms"),
                                       ({"exp_name": "a/b"}, ValueError, "exp_name='a/b' must name a file"),
                                       ({"neu_exc2": STIMULATED[:2]}, ValueError, "neu_exc and neu_exc2 both list root ID"),
                                       ({"exp_name": 5}, TypeError, "exp_name=5 must be a str")):
            with self.subTest(**{k: repr(v) for k, v in kwargs.items()}), tempfile.TemporaryDirectory() as tmp:
                args = {"exp_name": "bad", **kwargs}
                with self.assertRaisesRegex(error, message), mock.patch("builtins.print") as printed:
                    flysim.run_exp(args.pop("exp_name"), STIMULATED[:3], tmp, NEURONS, CONNECTIVITY, **args)
                printed.assert_not_called()
        df = pd.DataFrame({"trial": [0, 1], "flywire_id": STIMULATED[:2], "exp_name": ["e", "e"]})
        for kwargs, error, message in (({"t_run": 0, "n_run": 2}, ValueError, "t_run=0.0 must be above 0"),
                                       ({"t_run": -0.3, "n_run": 2}, ValueError, "t_run=-0.3 must be above 0"),
                                       ({"t_run": "0.3", "n_run": 2}, TypeError, "t_run='0.3' must be a number"),
                                       ({"t_run": 0.3, "n_run": 2.5}, TypeError, "n_run=2.5 must be an integer")):
            with self.subTest(**{k: repr(v) for k, v in kwargs.items()}), self.assertRaisesRegex(error, message):
                flysim.get_rate(df, **kwargs)
        if not flysim._flysim.cuda_compiled_in():
            with self.assertRaisesRegex(ValueError, "engine='cuda': this flysim module was built without CUDA"):
                flysim.run(net, engine="cuda", trials=1, duration_ms=10)
        else:
            try:  # without a usable GPU the advice names the engine, not the program's option
                flysim.run(net, stimulus=stim, engine="cuda", trials=1, duration_ms=10)
            except flysim.InputError as e:
                self.assertIn("the CPU engine", str(e))
                self.assertNotIn("engine.kind", str(e))


def write_ids(path, ids, comment=True):
    """An ID list file of `ids` at `path`, with '#' comments as flysim's files have them."""
    path.write_text(("# root IDs\n" if comment else "") + "".join(f"{i}  # neuron {k}\n" for k, i in enumerate(ids)))
    return path


class IdListFileTest(unittest.TestCase):
    """Root IDs given as the path (str or os.PathLike) of an ID list file are the IDs it holds."""

    def test_run_screen_and_readouts_take_id_list_files(self):
        net = load()
        a, silenced = STIMULATED[:12], STIMULATED[:3]
        with tempfile.TemporaryDirectory() as tmp:
            a_file, silenced_file = write_ids(Path(tmp) / "a.txt", a), write_ids(Path(tmp) / "silenced.txt", silenced)
            np.testing.assert_array_equal(net.index_of(str(a_file)), net.index_of(a))
            from_lists = flysim.run(net, stimulus={"a": (a, 150.0)}, silence=silenced, duration_ms=60, trials=2)
            for ids, silence in ((str(a_file), str(silenced_file)), (a_file, silenced_file)):
                with self.subTest(type=type(ids).__name__):
                    from_files = flysim.run(net, stimulus={"a": (ids, 150.0)}, silence=silence, duration_ms=60, trials=2)
                    self.assertEqual(spike_rows(from_files), spike_rows(from_lists))
            pd.testing.assert_frame_equal(from_lists.rates_of(a_file), from_lists.rates_of(a))
            common = {"stimulus": {"a": (a, 150.0)}, "duration_ms": 60, "trials": 2}
            listed = flysim.screen(net, {"baseline": {}, "s": {"silence": silenced}}, readouts=a, **common)
            filed = flysim.screen(net, {"baseline": {}, "s": {"silence": silenced_file}}, readouts=str(a_file), **common)
            pd.testing.assert_frame_equal(filed.readouts, listed.readouts)
            pd.testing.assert_frame_equal(filed.rates, listed.rates)

    def test_a_missing_or_bad_id_list_file_is_named(self):
        net = load()
        stim = {"a": (STIMULATED, 150.0)}
        with tempfile.TemporaryDirectory() as tmp:
            missing = Path(tmp) / "silenced.txt"
            for silence in (str(missing), missing):
                with self.subTest(type=type(silence).__name__), \
                        self.assertRaisesRegex(FileNotFoundError, f"^silence: the ID list file {missing} does not exist"):
                    flysim.run(net, stimulus=stim, silence=silence, trials=1, duration_ms=10)
            with self.assertRaisesRegex(FileNotFoundError, r"^stimulus\['a'\]: .*nope.txt does not exist"):
                flysim.run(net, stimulus={"a": ("nope.txt", 150.0)}, trials=1, duration_ms=10)
            with self.assertRaisesRegex(FileNotFoundError, "^readouts: .*silenced.txt does not exist"):
                flysim.screen(net, {"a": {}}, readouts=missing, stimulus=stim, trials=1, duration_ms=10)
            with self.assertRaisesRegex(FileNotFoundError, "^index_of: .*720575940660219265 does not exist .*as integers"):
                net.index_of("720575940660219265")  # one ID as a string names a file, and the error says so
            bad = Path(tmp) / "bad.txt"
            bad.write_text(f"{STIMULATED[0]}\n12x\n")
            with self.assertRaisesRegex(flysim.InputError, f"^silence: {bad}:2: .*'12x' is not an integer"):
                flysim.run(net, stimulus=stim, silence=bad, trials=1, duration_ms=10)
            with self.assertRaisesRegex(flysim.InputError, "^silence, item 0: neuron ID 12345 is not in the network"):
                flysim.run(net, stimulus=stim, silence=write_ids(Path(tmp) / "unknown.txt", [12345]), trials=1,
                           duration_ms=10)
            with self.assertRaisesRegex(TypeError, "^silence: root IDs must be integers or the path"):
                flysim.run(net, stimulus=stim, silence=str(bad).encode(), trials=1, duration_ms=10)

    def test_run_exp_takes_id_list_files(self):
        params = {"t_run": 0.1, "n_run": 3, "r_poi": 150.0, "r_poi2": 40.0}
        exc, exc2, slnc = STIMULATED[:12], STIMULATED[12:], STIMULATED[:2]
        with tempfile.TemporaryDirectory() as tmp, mock.patch.object(flysim.reference, "_parquet_engine", return_value=None):
            files = [write_ids(Path(tmp) / f"{name}.txt", ids) for name, ids in (("exc", exc), ("exc2", exc2), ("slnc", slnc))]
            listed = flysim.run_exp("listed", exc, Path(tmp) / "out", NEURONS, CONNECTIVITY, params=params,
                                    neu_exc2=exc2, neu_slnc=slnc)
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                filed = flysim.run_exp("filed", str(files[0]), Path(tmp) / "out", NEURONS, CONNECTIVITY, params=params,
                                       neu_exc2=files[1], neu_slnc=str(files[2]))
            banner = printed.getvalue()
            self.assertIn(f"Excited neurons: {len(STIMULATED)}\n", banner)
            self.assertIn(f"Silenced neurons: {len(slnc)}\n", banner)
            pd.testing.assert_frame_equal(flysim.read_csv(filed).drop(columns="exp_name"),
                                          flysim.read_csv(listed).drop(columns="exp_name"))
            with self.assertRaisesRegex(FileNotFoundError, "^neu_slnc: .*nope.txt does not exist"):
                flysim.run_exp("missing", exc, Path(tmp) / "new", NEURONS, CONNECTIVITY, params=params,
                               neu_slnc=Path(tmp) / "nope.txt")
            self.assertFalse((Path(tmp) / "new").exists())


class ReferenceApiTest(unittest.TestCase):
    PARAMS = {"t_run": 0.1, "n_run": 3, "r_poi": 150.0, "r_poi2": 40.0}

    def run_exp(self, folder, **kwargs):
        return flysim.run_exp("sugar", STIMULATED[:12], folder, NEURONS, CONNECTIVITY, params=self.PARAMS,
                              neu_exc2=STIMULATED[12:], neu_slnc=STIMULATED[:2], **kwargs)

    def test_run_exp_writes_the_reference_columns_to_csv_without_a_parquet_engine(self):
        with tempfile.TemporaryDirectory() as tmp, mock.patch.object(flysim.reference, "_parquet_engine", return_value=None):
            path = self.run_exp(tmp)
            self.assertEqual(path, Path(tmp) / "sugar.csv")
            df = pd.read_csv(path)
            self.assertEqual(list(df.columns), ["t", "trial", "flywire_id", "exp_name"])
            self.assertEqual(set(df["exp_name"]), {"sugar"})
            # The same spikes as run() with the same settings, in the reference's row order.
            same = flysim.run(load(), stimulus={"e": (STIMULATED[:12], 150.0), "e2": (STIMULATED[12:], 40.0)},
                              silence=STIMULATED[:2], duration_ms=100, trials=3)
            rows = sorted(zip(df["trial"], df["flywire_id"], np.round(df["t"] / 1e-4).astype(int)))
            self.assertEqual(rows, sorted(zip(same.spikes["trial"], same.spikes["flywire_id"], same.step)))
            self.assertEqual(list(zip(df["trial"], net_index(df["flywire_id"]))),
                             sorted(zip(df["trial"], net_index(df["flywire_id"]))))
            # get_rate as the reference's utils.get_rate: std with ddof=0 over n_run trials.
            df_rate, df_std = flysim.get_rate(df, t_run=0.1, n_run=3)
            pd.testing.assert_frame_equal(flysim.get_rate(df, duration=0.1, n_run=3)[0], df_rate)  # the earlier name
            per = same.rates.set_index("flywire_id")
            np.testing.assert_allclose(df_rate["sugar"].to_numpy(), per["mean_rate_hz"].to_numpy())
            np.testing.assert_allclose(df_std["sugar"].to_numpy(), per["sd_hz"].to_numpy() * np.sqrt(2 / 3))
            # An existing file is kept unless force_overwrite, and its path returned (a rerun
            # notebook cell reads it).
            before = path.stat().st_mtime_ns
            self.assertEqual(self.run_exp(tmp), path)
            self.assertEqual(path.stat().st_mtime_ns, before)
            self.assertEqual(self.run_exp(tmp, force_overwrite=True), path)

    def test_tables_and_run_exp_files_read_back_as_written(self):
        with tempfile.TemporaryDirectory() as tmp:
            table = Path(tmp) / "readouts.csv"
            table.write_text("exp_name,readout_id,trials,mean_rate_hz,sd_hz,sem_hz,change_hz\n"
                             "NA,720575940660219265,1,40.0,,,\n720575940616908177,720575940660219265,1,0.0,,,"
                             "-40.0\n")
            df = flysim.read_csv(table)
            self.assertEqual(df["exp_name"].tolist(), ["NA", "720575940616908177"])  # pandas alone: NaN, an int
            self.assertEqual(str(df["mean_rate_hz"].dtype), "float64")  # whole numbers stay float
            self.assertTrue(df["sd_hz"].isna().all())
            # A header alone reads as flysim.screen's empty tables: typed columns, a RangeIndex.
            empty = Path(tmp) / "rates.csv"
            empty.write_text("exp_name,flywire_id,trials,mean_rate_hz,sd_hz\n")
            none = flysim.screen(load(), {}, readouts=[])
            pd.testing.assert_frame_equal(flysim.read_csv(empty), none.rates)
            with mock.patch.object(flysim.reference, "_parquet_engine", return_value=None):
                paths = [flysim.run_exp(name, STIMULATED[:12], tmp, NEURONS, CONNECTIVITY, params=self.PARAMS)
                         for name in ("NA", "720575940616908177")]
            spikes = flysim.load_exps(paths)
            self.assertEqual(list(spikes["exp_name"].unique()), ["NA", "720575940616908177"])
            df_rate, _ = flysim.get_rate(spikes, t_run=0.1, n_run=3)
            self.assertEqual(sorted(df_rate.columns), ["720575940616908177", "NA"])  # pivot_table sorts them
            (Path(tmp) / "spikes.txt").write_text("t,trial,flywire_id,exp_name\n")
            with self.assertRaises(ValueError):
                flysim.load_exps([Path(tmp) / "spikes.txt"])
            with self.assertRaisesRegex(FileNotFoundError, "nope.parquet is not a file .it does not exist."):
                flysim.load_exps([Path(tmp) / "nope.parquet"])

    def test_run_exp_loads_an_edited_network_file_anew(self):
        with tempfile.TemporaryDirectory() as tmp, mock.patch.object(flysim.reference, "_parquet_engine", return_value=None), \
                mock.patch("builtins.print"):
            neurons, connectivity = Path(tmp) / "neurons.csv", Path(tmp) / "connectivity.csv"
            neurons.write_bytes(NEURONS.read_bytes())
            connectivity.write_bytes(CONNECTIVITY.read_bytes())
            first = flysim.run_exp("first", STIMULATED, tmp, neurons, connectivity, params=self.PARAMS)
            rows = CONNECTIVITY.read_text().splitlines(keepends=True)
            connectivity.write_text("".join(rows[:len(rows) // 5]))
            second = flysim.run_exp("second", STIMULATED, tmp, neurons, connectivity, params=self.PARAMS)
            fresh = flysim.run(flysim.load_network(neurons, connectivity), stimulus={"s": (STIMULATED, 150.0)},
                               trials=self.PARAMS["n_run"], duration_ms=self.PARAMS["t_run"] * 1e3)
            self.assertNotEqual(len(pd.read_csv(first)), len(pd.read_csv(second)))
            self.assertEqual(len(pd.read_csv(second)), len(fresh.spikes))

    def test_load_exps_reads_the_csv_run_exp_wrote_for_a_missing_parquet(self):
        with tempfile.TemporaryDirectory() as tmp:
            with mock.patch.object(flysim.reference, "_parquet_engine", return_value=None):
                written = flysim.run_exp("sugar", STIMULATED[:12], tmp, NEURONS, CONNECTIVITY, params=self.PARAMS)
            self.assertEqual(written, Path(tmp) / "sugar.csv")
            asked = Path(tmp) / "sugar.parquet"  # what a notebook written for parquet loads
            for path in (str(asked), asked, [asked]):
                with self.subTest(path=repr(path)), self.assertLogs("flysim", level="WARNING") as logs:
                    df = flysim.load_exps(path)
                    pd.testing.assert_frame_equal(df, flysim.load_exps(written))
                self.assertIn(f"load_exps: {asked} does not exist; reading {written} instead", logs.output[0])
                self.assertIn("no parquet engine", logs.output[0])
            with self.assertRaisesRegex(FileNotFoundError, rf"^load_exps: .*nope\.parquet is not a file "
                                                           rf"\(it does not exist\), nor is .*nope\.csv"):
                flysim.load_exps(Path(tmp) / "nope.parquet")

    def test_run_exp_hands_parquet_the_reference_dataframe_and_brotli(self):
        calls = []

        def to_parquet(df, path, **kwargs):
            calls.append((df.copy(), path, kwargs))

        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(flysim.reference, "_parquet_engine", return_value="pyarrow"), \
                mock.patch.object(pd.DataFrame, "to_parquet", to_parquet):
            path = self.run_exp(tmp)
        self.assertEqual(len(calls), 1)
        df, written, kwargs = calls[0]
        self.assertEqual(path, Path(tmp) / "sugar.parquet")
        self.assertEqual(written, path)
        self.assertEqual(kwargs, {"compression": "brotli"})
        self.assertEqual(list(df.columns), ["t", "trial", "flywire_id", "exp_name"])
        self.assertGreater(len(df), 0)
        self.assertEqual(df["trial"].max(), 2)

    def test_default_params_are_the_references(self):
        with mock.patch.dict(sys.modules, {"brian2": None}):
            si = flysim.reference._default_params()
        expected = {"t_run": 1.0, "n_run": 30, "v_0": -0.052, "v_rst": -0.052, "v_th": -0.045, "t_mbr": 0.02,
                    "tau": 0.005, "t_rfc": 0.0022, "t_dly": 0.0018, "w_syn": 0.000275, "r_poi": 150.0,
                    "r_poi2": 0.0, "f_poi": 250.0}
        self.assertEqual(set(si), set(expected))
        for key, value in expected.items():
            self.assertAlmostEqual(si[key], value, msg=key)
        try:
            import brian2
        except ImportError:
            return
        params = flysim.default_params
        self.assertEqual(params["t_mbr"], 20 * brian2.ms)
        self.assertEqual(params["w_syn"], 0.275 * brian2.mV)
        self.assertEqual(params["r_poi"], 150 * brian2.Hz)
        model, settings = flysim.reference._reference_settings(dict(params, t_run=100 * brian2.ms, w_syn=0.3 * brian2.mV))
        self.assertAlmostEqual(settings["t_run"], 0.1)
        self.assertAlmostEqual(model["w_syn_mV"], 0.3)
        # A quantity in the wrong units is refused, not read as an SI number.
        for key, wrong in (("r_poi", 150 * brian2.mV), ("t_run", 3 * brian2.Hz), ("v_th", -45 * brian2.ms),
                           ("f_poi", 250 * brian2.Hz)):
            with self.subTest(key=key), self.assertRaisesRegex(ValueError, rf"params\['{key}'\]=.* has dimensions"):
                flysim.reference._reference_settings(dict(params, **{key: wrong}))
        _, settings = flysim.reference._reference_settings(dict(params, r_poi2=40 * brian2.Hz))
        self.assertAlmostEqual(settings["r_poi2"], 40.0)
        with self.assertLogs("flysim", level="WARNING") as logs:  # a plain 300 is 300 s, likely meant as ms
            flysim.reference._reference_settings({"t_run": 300})
        self.assertIn("params['t_run']=300 is a plain number, read in seconds", logs.output[0])
        # run() takes quantities too, in the units its arguments name, and refuses other dimensions.
        net = load()
        plain = flysim.run(net, stimulus={"a": (STIMULATED, 150.0)}, duration_ms=50, trials=1, model={"w_syn_mV": 0.3})
        with_units = flysim.run(net, stimulus={"a": (STIMULATED, 150 * brian2.Hz)}, duration_ms=50 * brian2.ms, trials=1,
                                model={"w_syn_mV": 0.3 * brian2.mV})
        pd.testing.assert_frame_equal(plain.spikes, with_units.spikes)
        with self.assertRaisesRegex(ValueError, r"duration_ms=.* has dimensions .* where a quantity in ms is expected"):
            flysim.run(net, stimulus={"a": (STIMULATED, 150.0)}, duration_ms=3 * brian2.Hz, trials=1)
        with self.assertRaisesRegex(ValueError, r"stimulus\['a'\] rate=.* where a quantity in Hz is expected"):
            flysim.run(net, stimulus={"a": (STIMULATED, 150 * brian2.mV)}, duration_ms=10, trials=1)
        with self.assertRaisesRegex(ValueError, r"model\['f_poi'\]=.* where a plain number is expected"):
            flysim.run(net, stimulus={"a": (STIMULATED, 150.0)}, duration_ms=10, trials=1, model={"f_poi": 250 * brian2.mV})


def net_index(flywire_ids):
    return load().index_of(np.asarray(flywire_ids)).tolist()


class InterruptTest(unittest.TestCase):
    def interrupt(self, long_call, again_call):
        """Ctrl-C during long_call ends it with KeyboardInterrupt within 3 s; again_call then
        runs on the kept engines (it prints whether they were reused and spiked)."""
        child = f"""
import sys, time
import flysim
net = flysim.load_network({str(NEURONS)!r}, {str(CONNECTIVITY)!r})
stimulus = {{"s": ({STIMULATED!r}, 150.0)}}
print("running", flush=True)
try:
    {long_call}
except KeyboardInterrupt:
    {again_call}
    raise
"""
        proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
        self.assertEqual(proc.stdout.readline().strip(), "running", proc.stderr.read() if proc.poll() is not None else "")
        time.sleep(0.5)  # inside the C++ run loop
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        try:
            out, err = proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            self.fail("a 600 s run went on for 10 s after SIGINT")
        self.assertLess(time.monotonic() - sent, 3.0)
        self.assertIn("Traceback", err)
        self.assertTrue(err.rstrip().endswith("KeyboardInterrupt"), err)
        self.assertEqual(out.strip(), "engine reused True True")
        self.assertNotEqual(proc.returncode, 0)

    def test_ctrl_c_ends_a_long_run_with_keyboard_interrupt_and_the_engine_runs_again(self):
        self.interrupt("flysim.run(net, stimulus=stimulus, duration_ms=600000, trials=1, threads=1)",
                       "again = flysim.run(net, stimulus=stimulus, duration_ms=100, trials=1, threads=1); "
                       "print('engine reused', again.summary['engine_reused'], again.summary['spikes'] > 0, flush=True)")

    def test_ctrl_c_ends_a_screen_on_several_engines_and_they_run_again(self):
        self.interrupt("flysim.screen(net, [('a', {}), ('b', {})], engines=2, stimulus=stimulus, duration_ms=600000, "
                       "trials=1, threads=1)",
                       "again = flysim.screen(net, [('a', {}), ('b', {})], engines=2, stimulus=stimulus, duration_ms=100, "
                       "trials=1, threads=1).results.values(); "
                       "print('engine reused', all(r.summary['engine_reused'] for r in again), "
                       "all(r.summary['spikes'] > 0 for r in again), flush=True)")


class ServiceTest(unittest.TestCase):
    """flysim.Service against a real `flysim serve` on net2000."""

    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)
        self.stderr = open(self.dir / "serve.err", "w+")
        self.addCleanup(self.stderr.close)
        self.serve = subprocess.Popen(
            [BINARY, "serve", f"--network.neurons={NEURONS}", f"--network.connectivity={CONNECTIVITY}",
             f"--stimulus.ids={NET / 'stimulated.txt'}", f"--network.cache-dir={self.dir / 'cache'}", "--run.pace=5",
             "--control.port=0", f"--output.journal={self.dir / 'journal.jsonl'}", f"--checkpoint.dir={self.dir / 'ck'}"],
            stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        self.addCleanup(self.end_serve)
        for line in self.serve.stdout:  # ends when serve exits
            if "control API on http://" in line:
                self.url = line[line.index("http://"):].strip()
                return
        self.fail(f"flysim serve printed no control API address; its stderr:\n{self.serve_log()}")

    def serve_log(self):
        self.stderr.seek(0)
        return self.stderr.read()

    def end_serve(self):
        if self.serve.poll() is None:
            self.serve.kill()
        self.serve.wait()
        self.serve.stdout.close()

    def test_status_swap_stimulus_refusal_and_stop(self):
        svc = flysim.Service(self.url)
        status = svc.status()
        self.assertIn(status["state"], ("running", "starting"))
        self.assertEqual(status["poisson_neurons"], len(STIMULATED))
        swapped = svc.swap("cpu", threads=1)
        self.assertTrue(swapped["ok"], swapped)
        self.assertEqual(svc.status()["threads"], 1)
        changed = svc.stimulus(rate_hz=300)
        self.assertTrue(changed["ok"], changed)
        self.assertEqual(svc.status()["stimulus_rate_hz"], 300)
        self.assertIn("next", svc.rates())
        with self.assertRaises(flysim.ServiceError) as refused:
            svc.stimulus(group="extra", rate_hz=80)
        self.assertEqual(refused.exception.status, 409)
        self.assertIn("group 'extra' is new", refused.exception.message)
        with self.assertRaises(flysim.ServiceError) as bad:
            svc.swap("cpu", threads=0)
        self.assertEqual(bad.exception.status, 400)
        self.assertIn("threads must be 1..", str(bad.exception))
        self.assertTrue(svc.stop()["ok"])
        self.assertEqual(self.serve.wait(timeout=60), 0, self.serve_log())
        self.assertIn('"rate_hz"', (self.dir / "journal.jsonl").read_text())
        with self.assertRaisesRegex(flysim.ServiceError, "no flysim serve answers at") as gone:
            svc.status()
        self.assertIsNone(gone.exception.status)

    def test_id_list_files_reach_the_service(self):
        svc = flysim.Service(self.url)
        silenced = write_ids(self.dir / "silenced.txt", STIMULATED[:4])
        self.assertTrue(svc.stimulus(silence_ids=silenced)["ok"])
        self.assertEqual(svc.status()["silenced_neurons"], 4)
        self.assertTrue(svc.stimulus(poisson_ids=str(silenced))["ok"])
        self.assertEqual(svc.status()["poisson_neurons"], 4)
        with self.assertRaisesRegex(FileNotFoundError, "^silence_ids: .*nope.txt does not exist"):
            svc.stimulus(silence_ids=self.dir / "nope.txt")
        self.assertTrue(svc.stop()["ok"])
        self.assertEqual(self.serve.wait(timeout=60), 0, self.serve_log())

    def test_a_wrong_url_and_an_unknown_endpoint_are_named(self):
        with self.assertRaisesRegex(ValueError, "must be http://HOST:PORT"):
            flysim.Service("127.0.0.1:7460")
        with self.assertRaisesRegex(ValueError, "timeout=0 must be a positive number"):
            flysim.Service(self.url, timeout=0)
        with self.assertRaisesRegex(ValueError, "token must be one word"):
            flysim.Service(self.url, token="two words")
        self.assertEqual(flysim.Service(self.url, token="secret\n")._token, "secret")  # as read from a token file
        self.assertEqual(flysim.Service(self.url, token="secret\n# a note\n")._token, "secret")  # its first line, as the service reads it
        self.assertIsNone(flysim.Service(self.url, timeout=None).timeout)
        with self.assertRaisesRegex(TypeError, "rate_hz='abc' must be a number in Hz"):
            flysim.Service(self.url).stimulus(rate_hz="abc")
        with self.assertRaisesRegex(ValueError, "rate_hz=nan must be a finite number"):
            flysim.Service(self.url).stimulus(rate_hz=float("nan"))
        with self.assertRaisesRegex(ValueError, r"kicks\[1\]'s after_ms=inf must be a finite number"):
            flysim.Service(self.url).stimulus(kicks=[(1, 2.0), (1, float("inf"))])
        with self.assertRaises(flysim.ServiceError) as unknown:
            flysim.Service(self.url)._request("GET", "/nowhere")
        self.assertEqual(unknown.exception.status, 404)
        self.assertIn("no endpoint /nowhere", unknown.exception.message)


if __name__ == "__main__":
    unittest.main(verbosity=2)
