"""Machine files in the Python API and the CLI: loading by name and by path, single options over
the machine's values, the link-only --params presets, and the host costs of a shipped machine
checked on a case computed by hand (docs/host-costs.md)."""

from __future__ import annotations

import json

import pytest
from topocoll import _core, simulate
from topocoll.machine import load_machine, shipped_machines
from topocoll.simulation import PRESET_MACHINES, make_setup, preset_params

# swing-sst's host costs (python/topocoll/machines/swing-sst.json, SST firefly's defaults)
SEND_O, RECV_O, GAP, EAGER = 130e-9, 250e-9, 50e-9, 12000
LINK, HOP = 100e-9, 300e-9  # swing-nsdi24.txt section 5


def test_every_shipped_machine_loads_by_name_and_by_path():
    names = shipped_machines()
    assert {"swing-sst", "trivance-sst", "canary", "cm200", "lumi", "fugaku"} <= set(names)
    for name in names:
        by_name = load_machine(name)
        assert by_name.name == name
        assert by_name.sources  # every value read carries its source
        from topocoll.machine import machine_path

        by_path = load_machine(str(machine_path(name)))
        assert by_path.params.to_dict() == by_name.params.to_dict()


def test_swing_sst_values():
    m = load_machine("swing-sst")
    assert m.topology == "torus:64x64"
    h = m.params.host
    assert (h.send_overhead_s, h.recv_overhead_s, h.gap_s) == pytest.approx((SEND_O, RECV_O, GAP))
    assert h.eager_threshold_bytes == EAGER and h.copy_s_per_byte == 0
    assert "host.gap" in m.sources


def test_unknown_machine_names_the_shipped_ones():
    with pytest.raises(ValueError, match="accepted: canary, cm200"):
        load_machine("nosuchmachine")


def test_presets_are_the_machine_files_links_without_host_costs():
    """--params gives the machine file's link values (to the last rounding of the unit parser)
    and no host costs."""
    for preset, machine in PRESET_MACHINES.items():
        ours = preset_params(preset)
        assert ours.host.idle and ours.reduce_s_per_byte == 0
        full = load_machine(machine).params.to_dict()
        for key in ("bandwidth_bytes_per_s", "link_latency_s", "hop_latency_s", "alpha_s"):
            assert ours.to_dict()[key] == pytest.approx(full[key], rel=1e-12), (preset, key)
        assert ours.nic_ports == full["nic_ports"]


def test_single_options_override_the_machine():
    setup = make_setup(None, "allreduce", machine="swing-sst", gap="1us", eager_threshold="none")
    p = setup.network_params()
    assert setup.topology == "torus:64x64" and setup.machine == "swing-sst"
    assert p.host.gap_s == pytest.approx(1e-6)
    assert p.host.eager_threshold_bytes == _core.ALWAYS_EAGER
    assert p.host.send_overhead_s == pytest.approx(SEND_O)
    assert p.bandwidth_bytes_per_s == 400e9 / 8


def test_machine_and_params_together_are_refused():
    with pytest.raises(ValueError, match="--params and --machine"):
        make_setup("ring:4", "allreduce", machine="swing-sst", params="swing")


def test_reduction_rate_per_datatype_class(tmp_path):
    doc = {
        "format": "topocoll-machine/1",
        "name": "classes",
        "description": "two reduction rates",
        "host": {"reduce_rate": {"value": {"float": "1GBps", "double": "2GBps"}, "source": "test"}},
    }
    path = tmp_path / "classes.json"
    path.write_text(json.dumps(doc))
    float_setup = make_setup("ring:4", "allreduce", machine=str(path))
    double_setup = make_setup("ring:4", "allreduce", machine=str(path), datatype="double")
    assert float_setup.network_params().reduce_s_per_byte == pytest.approx(1e-9)
    assert double_setup.network_params().reduce_s_per_byte == pytest.approx(0.5e-9)
    with pytest.raises(ValueError, match="accepted: double, float"):
        make_setup("ring:4", "allreduce", machine=str(path), datatype="int")
    with pytest.raises(ValueError, match="unknown datatype 'quad'; accepted: float"):
        make_setup("ring:4", "allreduce", machine=str(path), datatype="quad")


def _time(*extra: str, run_cli) -> float:
    code, out, err = run_cli(
        "sim", "-t", "ring:4", "-c", "allreduce", "--ranks", "2", "-a", "ring", "--size", "8KiB",
        "--json", *extra,
    )  # fmt: skip
    assert code == 0, err
    return json.loads(out)["time_s"]


def test_swing_sst_adds_exactly_its_host_costs(run_cli):
    """Ring allreduce of 8 KiB on 2 ranks: two steps, each one contiguous 4 KiB message per
    rank (eager: 4 KiB <= 12000 B; no packing copy). Per step the sender's CPU pays o_send
    before injecting and the receiver's o_recv after the last byte arrives; the gap (50 ns)
    never binds (one message per port per step). So the machine adds 2 x (o_send + o_recv)
    to the link-only preset's time."""
    preset = _time("--params", "swing", run_cli=run_cli)
    machine = _time("--machine", "swing-sst", run_cli=run_cli)
    wire = LINK + HOP + 4096 / (400e9 / 8)  # one neighbour link, 4 KiB at 400 Gb/s
    assert preset == pytest.approx(2 * wire, rel=1e-9)
    assert machine - preset == pytest.approx(2 * (SEND_O + RECV_O), rel=1e-6)


def test_overhead_rate_charges_each_byte_at_both_ends(run_cli):
    """LogGOPS's O (docs/host-costs.md): the same two steps of one 4 KiB message each way, with
    O = 1 GB/s; the sender's CPU spends 4096 B / O before the message leaves and the receiver's
    as long after it arrives, on the critical path of each step: 2 x 2 x 4.096 us more."""
    plain = _time("--machine", "swing-sst", run_cli=run_cli)
    with_o = _time("--machine", "swing-sst", "--overhead-rate", "1GBps", run_cli=run_cli)
    assert with_o - plain == pytest.approx(2 * 2 * 4096 / 1e9, rel=1e-6)
    code, _, err = run_cli("sim", "-t", "ring:4", "-c", "allreduce", "-a", "ring", "--size",
                           "8KiB", "--overhead-rate", "1Bps")  # fmt: skip
    assert code == 2 and "--overhead-rate" in err and "1MBps to 1PBps" in err, err


def test_rendezvous_adds_one_round_trip_per_message(run_cli):
    """The same run with an eager threshold below the 4 KiB messages: each step's message
    waits a round trip of its path's latency (2 x (link + hop)) before it is injected, and
    with a rendezvous overhead the receiver's CPU pays it once per message (one per step on
    the critical path)."""
    eager = _time("--machine", "swing-sst", run_cli=run_cli)
    rendezvous = _time("--machine", "swing-sst", "--eager-threshold", "1KiB", run_cli=run_cli)
    assert rendezvous - eager == pytest.approx(2 * 2 * (LINK + HOP), rel=1e-6)
    handshake = ("--eager-threshold", "1KiB", "--rendezvous-overhead", "3us")
    with_cpu = _time("--machine", "swing-sst", *handshake, run_cli=run_cli)
    assert with_cpu - rendezvous == pytest.approx(2 * 3e-6, rel=1e-6)  # once per step
    with_eager = _time("--machine", "swing-sst", "--rendezvous-overhead", "3us", run_cli=run_cli)
    assert with_eager == pytest.approx(eager, rel=1e-12)  # eager messages pay none of it
    code, _, err = run_cli("sim", "-t", "ring:4", "-c", "allreduce", "-a", "ring", "--size",
                           "8KiB", "--rendezvous-overhead", "2s")  # fmt: skip
    assert code == 2 and "--rendezvous-overhead" in err and "0s to 1s" in err, err


def test_all_host_costs_zero_reproduce_the_link_only_result(run_cli):
    zero = ("--send-overhead", "0ns", "--recv-overhead", "0ns", "--gap", "0ns")
    zero += ("--eager-threshold", "none", "--copy-rate", "none", "--overhead-rate", "none")
    for size in ("8KiB", "1MiB"):
        base = [
            "sim",
            "-t",
            "torus:4x4",
            "-c",
            "allreduce",
            "-a",
            "swing-bw",
            "--size",
            size,
            "--json",
        ]
        code, out, err = run_cli(*base, "--params", "swing")
        assert code == 0, err
        code2, out2, err2 = run_cli(*base, "--machine", "swing-sst", *zero)
        assert code2 == 0, err2
        # Equal up to the last bit: "100ns" in a file parses to 100 x 1e-9, the preset's
        # constant is 100e-9.
        assert json.loads(out2)["time_s"] == pytest.approx(json.loads(out)["time_s"], rel=1e-12)


def test_python_simulate_takes_the_machine():
    with_machine = simulate("ring:4", "allreduce", "ring", "8KiB", ranks=2, machine="swing-sst")
    without = simulate("ring:4", "allreduce", "ring", "8KiB", ranks=2)
    assert with_machine.time_s - without.time_s == pytest.approx(2 * (SEND_O + RECV_O), rel=1e-6)


def test_a_bad_machine_file_is_exit_2_on_one_line(run_cli, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "topocoll-machine/1", "name": "x", "description": "d", "hots": {}}')
    for command in ("sim", "compare", "tune"):
        extra = ["-a", "ring", "--size", "1KiB"] if command == "sim" else ["--ranks", "4"]
        code, out, err = run_cli(
            command, "-t", "ring:4", "-c", "allreduce", "--machine", str(bad), *extra
        )
        assert code == 2, (command, err)
        assert len(err.strip().splitlines()) == 1 and "hots" in err, err
    code, _, err = run_cli(
        "sim", "-c", "allreduce", "-a", "ring", "--size", "1KiB", "--machine", "nosuch"
    )
    assert code == 2 and "accepted: canary" in err


def test_tune_writes_the_machine_into_its_rules(run_cli, tmp_path):
    out = tmp_path / "rules.json"
    code, _, err = run_cli(
        "tune", "-t", "torus:4x4", "--ranks", "16", "--machine", "swing-sst",
        "--sizes", "1KiB,1MiB", "-o", str(out),
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out.read_text())["source"]["machine"] == "swing-sst"


def test_innet_refuses_host_costs_and_takes_link_values(run_cli):
    code, _, err = run_cli("innet", "--machine", "swing-sst", "--size", "64KiB")
    assert code == 2 and "host.send_overhead" in err and len(err.strip().splitlines()) == 1
    params, topology = __import__("topocoll.innet", fromlist=["innet_params"]).innet_params(
        None, "canary"
    )
    assert topology == "fattree:canary"
    preset = _core.network_preset("canary").to_dict()
    assert params.to_dict() == pytest.approx(preset, rel=1e-12)


def test_runtime_cpu_options_charge_and_refuse_out_of_range(run_cli):
    """--step-cpu joins each of the ring's two steps on the CPU and --call-overhead comes once
    before them: 2 x 1 us + 3 us more than without; a value past 1 s is one line, exit 2."""
    plain = _time("--params", "swing", run_cli=run_cli)
    costly = _time("--params", "swing", "--step-cpu", "1us", "--call-overhead", "3us",
                   run_cli=run_cli)  # fmt: skip
    assert costly - plain == pytest.approx(2e-6 + 3e-6, rel=1e-6)
    for option in ("--step-cpu", "--call-overhead"):
        code, _, err = run_cli("sim", "-t", "ring:4", "-c", "allreduce", "-a", "ring",
                               "--size", "8KiB", option, "2s")  # fmt: skip
        assert code == 2 and option in err and "0s to 1s" in err, err
