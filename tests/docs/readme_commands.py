#!/usr/bin/env python3
"""Runs every command the README shows, so the documentation cannot rot.

Usage: readme_commands.py README.md FLYSIM_BINARY

Each ```sh block of the README is read; a command may continue over lines ending in a
backslash and end in a '# comment'. Every `build/flysim ...` line runs in a scratch
folder that has the repository's data/ and tests/ beside it, with these scalings (the
commands stay as written otherwise, so an option the README gets wrong still fails):
  - run.trials is capped at 2 (30 trials of the full network would take a minute);
  - `generate` without generate.* makes a 2,000-neuron network, not the 15.1M rows;
  - files the README only names (my_ids.txt, pre.txt, post.txt, the FlyWire export:
    all v783 neurons, 200,000 connections) are made first; the ```ini example is the experiment.ini it uses;
  - `flysim shard` and `flysim worker` run in the background until the next of their kind or the end, and
    `flysim serve ... &` until `flysim ctl stop`;
  - commands that need a GPU must either succeed or, where none is usable, be refused
    with one 'flysim: error:' line (or `doctor`'s exit code 1);
  - `make TARGET ...` is checked with `make -n` (the target exists);
  - any other line is a plain shell step, run with bash in the scratch folder.
Exit code 0 when every command did what the README says.
"""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

README, BINARY = sys.argv[1], os.path.abspath(sys.argv[2])
REPO = os.path.dirname(os.path.abspath(README))
TRIALS_CAP = 2
# A command still running after this long has hung (a replay without its end, say): a failure, not a wait.
COMMAND_TIMEOUT_S = 300


def blocks(text, language):
    return re.findall(r"```" + language + r"\n(.*?)```", text, re.S)


def commands(block):
    joined, pending = [], ""
    for line in block.splitlines():
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        line = pending + line
        pending = ""
        code = line.split(" #")[0].strip() if not line.lstrip().startswith("#") else ""
        if code:
            joined.append(code)
    return joined


def scaled_ini(text, cache):
    text = re.sub(r"(?m)^trials\s*=\s*(\d+)", lambda m: "trials = %d" % min(int(m.group(1)), TRIALS_CAP), text)
    return re.sub(r"(?m)^cache-dir\s*=.*$", "cache-dir = " + cache, text)


def scaled_args(args):
    out = []
    for a in args:
        m = re.match(r"--run\.trials=(\d+)$", a)
        out.append("--run.trials=%d" % min(int(m.group(1)), TRIALS_CAP) if m else a)
    if args and args[0] == "generate" and not any(a.startswith("--generate.") for a in args):
        out += ["--generate.neurons=2000", "--generate.connections=20000"]
    return out


def gpu_usable(env):
    probe = subprocess.run([BINARY, "doctor"], env=dict(env, FLY_LIF_CUDA="1"), capture_output=True, text=True)
    return probe.returncode == 0


def main():
    text = open(README).read()
    work = tempfile.mkdtemp(prefix="flysim-readme-")
    cache = os.path.join(work, "cache")
    env = dict(os.environ, XDG_CACHE_HOME=os.path.join(work, "xdg"))
    for name in ("data", "tests"):
        os.symlink(os.path.join(REPO, name), os.path.join(work, name))
    # Files the README names without making them.
    ids = [l for l in open(os.path.join(REPO, "data/maggot_subset_nodes.csv")).read().split("\n")[1:6] if l]
    open(os.path.join(work, "my_ids.txt"), "w").write("\n".join(l.split(",")[0] for l in ids) + "\n")
    sugar = [l for l in open(os.path.join(REPO, "data/sugar_grn_783.txt")) if l.strip() and not l.startswith("#")]
    open(os.path.join(work, "pre.txt"), "w").write("".join(sugar))
    open(os.path.join(work, "post.txt"), "w").write("".join(sugar[:5]))
    for ini in blocks(text, "ini"):
        open(os.path.join(work, "experiment.ini"), "w").write(scaled_ini(ini, cache))
    # The FlyWire export stand-in: every v783 neuron (the sugar GRNs must be there), few connections.
    subprocess.run([BINARY, "generate", "--generate.connections=200000",
                    "--output.neurons=" + os.path.join(work, "Completeness_783.csv"),
                    "--output.connectivity=" + os.path.join(work, "Connectivity_783.csv")],
                   env=env, check=True, capture_output=True)
    gpu = gpu_usable(env)
    failures, ran, nodes, serve = [], 0, {}, None
    for block in blocks(text, "sh"):
        for command in commands(block):
            words = shlex.split(command)
            cmd_env = dict(env)
            while words and re.match(r"^[A-Z_][A-Z0-9_]*=", words[0]):
                key, value = words.pop(0).split("=", 1)
                cmd_env[key] = value
            if words[0] == "make":
                result = subprocess.run(["make", "-n", "-C", REPO] + words[1:], capture_output=True, text=True)
                ran += 1
                if result.returncode != 0:
                    failures.append((command, "make -n failed: " + result.stderr.strip()))
                continue
            if words[0] != "build/flysim":
                # Plain shell steps the README shows (making a token file, say).
                ran += 1
                result = subprocess.run(["bash", "-c", command], cwd=work, env=cmd_env, capture_output=True, text=True)
                if result.returncode != 0:
                    failures.append((command, result.stderr.strip()))
                continue
            args = scaled_args(words[1:])
            if args[0] == "run" and not any(a.startswith("--network.cache-dir") for a in args) and \
                    not any(a.startswith("--config") for a in args):
                args.append("--network.cache-dir=" + cache)
            ran += 1
            if args and args[-1] == "&":
                args = args[:-1]
            if args[0] == "serve":
                serve = subprocess.Popen([BINARY] + args, cwd=work, env=cmd_env, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, text=True)
                line = serve.stdout.readline()
                if "control API" not in line:
                    failures.append((command, "no 'control API' line: " + line))
                continue
            if args[0] in ("shard", "worker"):
                if nodes.get(args[0]):
                    nodes[args[0]].send_signal(signal.SIGTERM)
                    nodes[args[0]].wait(timeout=30)
                node = subprocess.Popen([BINARY] + args, cwd=work, env=cmd_env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
                line = node.stdout.readline()
                nodes[args[0]] = node
                if "serving" not in line:
                    failures.append((command, "no 'serving' line: " + line + node.stderr.read()))
                    nodes[args[0]] = None
                continue
            started = time.time()
            try:
                result = subprocess.run([BINARY] + args, cwd=work, env=cmd_env, capture_output=True, text=True,
                                        timeout=COMMAND_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                print("FAIL  %5.1f s  timed out  %s" % (time.time() - started, command), flush=True)
                failures.append((command, "still running after %d s (a README command must end)" % COMMAND_TIMEOUT_S))
                continue
            wants_gpu = cmd_env.get("FLY_LIF_CUDA") == "1" or "cuda" in " ".join(args)
            ok = result.returncode == 0
            if wants_gpu and not gpu:
                errors = [l for l in result.stderr.splitlines() if l.startswith("flysim: error:")]
                ok = (args[0] == "doctor" and result.returncode == 1) or (result.returncode == 2 and len(errors) == 1) or \
                     (args[0] == "ctl" and result.returncode == 1 and
                      ("cannot run here" in result.stderr or "built without CUDA" in result.stderr))
            if args[:2] == ["ctl", "stop"] and serve:
                ok = ok and serve.wait(timeout=60) == 0
                serve = None
            print("%s  %5.1f s  exit %d  %s" % ("ok  " if ok else "FAIL", time.time() - started, result.returncode, command),
                  flush=True)
            if not ok:
                failures.append((command, result.stderr.strip()[-2000:]))
    for server in list(nodes.values()) + [serve]:
        if server:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
    shutil.rmtree(work, ignore_errors=True)
    for command, why in failures:
        print("README command failed: %s\n%s\n" % (command, why))
    print("%d README commands, %d failed" % (ran, len(failures)))
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
