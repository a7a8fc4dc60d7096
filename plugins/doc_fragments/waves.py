# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # Waves and the failure budget of every module that changes nodes in bulk (fleet/runner.py WAVE_SPEC).
    DOCUMENTATION = r'''
options:
  wave_size:
    version_added: 0.3.0
    description:
      - Change the nodes a few at a time, and start the next few only when the ones before are back and healthy.
      - A number of nodes (V(10)), or a percentage of the nodes the task changes (V(10%), rounded down, at least
        one node), as Ansible's C(serial) counts one.
      - The task first plans every node without writing, as check mode does; the nodes that need a change, in the
        order of O(nodes) (Ironic's order with O(select)), are split into waves. Nodes that need no change are in
        no wave, not counted and not waited on.
      - A wave runs as the task would without waves, O(concurrency) nodes at once. Then every node of the wave is
        read again and must be healthy, or it counts as failed, with the reason in its C(error). Healthy is
        at rest, out of maintenance (unless the task sets it), without a C(fault), powered on when C(active) or
        in C(rescue) (or powered as the task declares), and with a C(health) (Ironic API 1.109) other than
        C(Critical).
      - When more than O(max_fail_percentage) of the nodes to change failed, no further wave starts; the nodes
        left are in RV(nodes) with C(started) false and are counted in C(not_started) of RV(totals). A rerun of
        the same task plans again, so it carries on with the nodes not done and touches none that is done.
      - In check mode, RV(waves) shows the waves the task would run; nothing is changed.
      - C(timeout), where the module has one, counts for each wave.
      - Unset, every node that needs a change is changed at once (up to O(concurrency)).
    type: str
  wave_pause:
    version_added: 0.3.0
    description:
      - With O(wave_size), seconds to wait between the end of a wave and the start of the next, for the workload
        to settle.
      - A pause above 0 without O(wave_size) is refused before anything is sent to Ironic, as the task runs no
        waves.
    type: float
    default: 0
  max_fail_percentage:
    description:
      - With O(nodes) or O(select), the percentage of the nodes the task changes (those that need a change, not
        those already as declared) that may fail without failing the task, from 0 to 100.
      - With O(wave_size), it is also the failure budget of the rollout; no wave starts once more than this failed.
      - The errors of a task that does not fail are warnings.
    type: float
    default: 0
'''
