# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Running one action over many items, a bounded number at once, each failure stored on its own item."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from concurrent.futures import ThreadPoolExecutor

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.result import fail


def run_each(items, action, concurrency=1):
    """action(item) for every item, at most ``concurrency`` at once; the results in the order of the items.

    An action that raises BaremetalError gives {'error': message} merged over the partial result it carries.
    """
    def guarded(item):
        try:
            return action(item)
        except BaremetalError as exc:
            return fail(dict(exc.result), str(exc))

    items = list(items)
    if len(items) <= 1 or concurrency <= 1:
        return [guarded(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(concurrency, len(items))) as pool:
        return list(pool.map(guarded, items))
