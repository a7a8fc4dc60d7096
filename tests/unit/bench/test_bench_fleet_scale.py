# -*- coding: utf-8 -*-
"""bench_fleet_scale's figures: the reruns of a round are samples of one path, and the targets come from medians."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, 'bench'))
import bench_fleet_scale  # noqa: E402

Run = bench_fleet_scale.Run


def a_round(role, floor, rerun, empty, with_passwords=2.0, without=1.8, report=3.0, reads=2.7):
    return {'floor: raw REST, same requests': Run(floor, None, None, ''),
            'role: nothing -> available': Run(role, 50.0, 120.0, ''),
            'role: no-op rerun 0': Run(rerun, 9.0, 100.0, ''), 'role: no-op rerun 1': Run(rerun + 0.2, 9.0, 100.0, ''),
            'empty play': Run(empty, 0.8, 60.0, ''),
            'records: a BMC password per node': Run(with_passwords, 1.0, 80.0, ''),
            'records: no driver_info': Run(without, 1.0, 80.0, ''),
            'report: module baremetal_fleet_report': Run(report, 1.0, None, ''),
            'report: playbook fleet_report.yml': Run(report + 5.0, 4.0, 90.0, ''),
            'report: floor, same reads': Run(reads, None, None, '')}


def test_the_reruns_of_every_round_are_samples_of_one_path():
    samples = bench_fleet_scale.medians([a_round(10.0, 9.0, 3.0, 1.0), a_round(12.0, 10.0, 4.0, 1.0)])
    assert [run.seconds for run in samples['role: no-op rerun']] == [3.0, 3.2, 4.0, 4.2]
    assert 'role: no-op rerun 0' not in samples and len(samples['empty play']) == 2


def test_the_rerun_is_judged_per_node_above_the_empty_play(capsys):
    small = bench_fleet_scale.medians([a_round(100.0, 90.0, 3.0, 1.0)] * 3)
    large = bench_fleet_scale.medians([a_round(1150.0, 1000.0, 23.0, 1.0)] * 3)
    bench_fleet_scale.targets([(1000, small), (10000, large)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2].split()[:2] == ['1,000', '1.11']
    # 2.1 s above the empty play at 1,000 (3.0 and 3.2), 22.1 s at 10,000: 1.05 per node.
    assert lines[-1].split()[:6] == ['10,000', '1.15', '22.10', 's,', '1.05', 'per']
