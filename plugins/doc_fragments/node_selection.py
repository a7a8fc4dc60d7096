# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    # How the modules that act on one node, a list of nodes or a selection name them (fleet/runner.py NODE_SELECTION_SPEC).
    DOCUMENTATION = r'''
options:
  node:
    description:
      - The name or UUID of the node.
      - Exactly one of O(node), O(nodes) and O(select) is required.
      - O(name) is the same option, the word M(baremetal.lifecycle.baremetal_node) uses.
    type: str
    aliases: [name]
  nodes:
    version_added: 0.2.0
    description:
      - Many nodes in one task, each a name or UUID, or a dictionary with C(node) and optionally the module's
        per-node options (such as C(state)); an option an element does not give is the task's.
      - They are read in proportion to their number, not to the size of Ironic (one list of twice as many nodes,
        then a request for each node it did not hold), and only the nodes that need a change get a request, at
        most O(concurrency) at once. Every element is checked, and every node looked up, before the first write.
      - A node that fails has its error in its entry of RV(nodes); the others go on, and the task fails afterwards.
      - Every module returns the same shape for many nodes; see the notes.
      - An empty list changes nothing and says so in C(msg).
    type: list
    elements: raw
  concurrency:
    version_added: 0.2.0
    description:
      - With O(nodes) or O(select), how many nodes are changed at once, each with its own requests (and its own
        wait, where the module waits), so how many writes reach Ironic at once.
      - The default, V(1), sends one write at a time, which every Ironic takes. An Ironic on MySQL or PostgreSQL
        takes more at once. On SQLite, concurrent writes wait for each other; a
        write Ironic answers with C(database is locked) is sent again with backoff.
      - O(wave_size) is the outer limit, how many nodes a task takes in hand before it checks they are healthy;
        O(concurrency) is the inner one, how many of those at once.
    type: int
    default: 1
notes:
  - With O(nodes) or O(select), every module of this collection returns the same shape. RV(nodes) has one entry
    per node, each with C(node) (the node as the task left it, secrets masked), C(changed), C(error) (null unless
    the node failed) and the module's own keys; RV(totals) counts the nodes, those changed, those failed and those
    whose wave never started (O(wave_size)), with
    the seconds taken and the API calls; RV(failed_nodes) names the nodes that failed; in diff mode, C(diff) has
    one entry per node that changed, headed by the node's name.
'''

    # select alone, for a module that names its nodes otherwise (baremetal_node); extended as node_selection.select.
    SELECT = r'''
options:
  select:
    version_added: 0.2.0
    description:
      - Every node that matches all the given filters, with the task's options. No node matching is no change, and
        says so in C(msg).
      - At least one filter must be set, or O(select.all=true). A selection that sets no filter (V({}), or every
        filter null, as a filter templated from an empty or undefined variable is) is refused before any request,
        never taken as every node. A filter set to an empty string is refused too.
    type: dict
    suboptions:
      all:
        description:
          - Every node Ironic holds (that the credentials may see), on purpose.
          - Cannot be combined with a filter.
        type: bool
        default: false
        version_added: 0.4.0
      conductor_group:
        description: Only nodes of this conductor group, in any case (Ironic stores groups in lower case).
        type: str
      owner:
        description: Only nodes owned by this project.
        type: str
      resource_class:
        description: Only nodes of this resource class.
        type: str
      shard:
        description: Only nodes of this shard (Ironic API 1.82).
        type: str
'''
