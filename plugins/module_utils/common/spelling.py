# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The hint a message gives for a misspelled name: the closest known name, by difflib's ratio.

Input checks (common/validate.py, common/steps.py) and the checks of the node layer use it; it imports nothing of
the collection, so every file of common can import it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib


def closest(word, choices, n=1):
    """The choices closest to a misspelled word, the closest first."""
    return difflib.get_close_matches(str(word), sorted(choices), n=n)


def did_you_mean(word, choices):
    """' (did you mean 'x'?)' with the choice closest to a misspelled word, or '' when none is close."""
    close = closest(word, choices)
    return ' (did you mean %r?)' % close[0] if close else ''
