# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one way a diff is built: what a task changes, item by item, before and after (community.docker's
DifferenceTracker is the model). Every side is masked by _secrets before it leaves: a diff shows no secret."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common import secrets


class _Absent(object):
    """A side on which the item does not exist (a node being created has no before)."""

    def __repr__(self):
        return 'ABSENT'


ABSENT = _Absent()


class DifferenceTracker(object):
    """Items added one by one, each with its value before and after the task."""

    def __init__(self):
        self._items = []

    def add(self, name, before, after):
        """Record one item; ABSENT leaves it out of that side."""
        self._items.append((name, before, after))
        return self

    @property
    def has_difference(self):
        return any(before != after for _name, before, after in self._items)

    def diff(self, label=None):
        """Ansible's diff: {'before': {...}, 'after': {...}}, with headers naming the node when label is given."""
        before = dict((name, value) for name, value, _after in self._items if value is not ABSENT)
        after = dict((name, value) for name, _before, value in self._items if value is not ABSENT)
        result = {'before': secrets.masked(before), 'after': secrets.masked(after)}
        if label is not None:
            result.update(before_header=label, after_header=label)
        return result
