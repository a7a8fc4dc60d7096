# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one root of this collection's errors, caught once in the module base class."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class BaremetalError(Exception):
    """A failure whose message says what went wrong and what to do.

    result holds what the task already did (a partial module result), so a failure in the middle
    of the work still reports it: BaremetalModule.run fails the task with both.
    """

    def __init__(self, message, result=None):
        super(BaremetalError, self).__init__(message)
        self.result = dict(result or {})
