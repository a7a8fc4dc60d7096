# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one-pass scrub behind secrets.scrubbed (compared with Ansible's remove_values in test_secrets.py): every
occurrence of every secret is found, overlapping ones too, whatever characters the secrets hold."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

import pytest

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.scrub import SecretFinder

MASK = '********'


def occurrences(secrets, text):
    return sorted(SecretFinder(secrets, MASK)._found(text))


def test_every_occurrence_is_found_overlapping_and_nested_ones_too():
    assert occurrences({'abc', 'bcd', 'b', 'abcdef'}, 'xabcdefx') == [(1, 3), (1, 6), (2, 1), (2, 3)]
    assert occurrences({'aa'}, 'aaaa') == [(0, 2), (1, 2), (2, 2)]


@pytest.mark.parametrize('secret', ['a]b', 'a-b', '^ab', 'a\\b', '[x]', 'a\x00b', 'a\nb', 'p\u00e4ss', 'a\udcffb'])
def test_secrets_of_any_characters_are_found_and_texts_joined_with_a_character_no_secret_holds(secret):
    finder = SecretFinder({secret, 'zz'}, MASK)
    assert finder.separator not in secret
    assert finder.scrubbed(['one %s two' % secret, secret, 'zz%szz' % secret, 'none']) == [
        'one %s two' % MASK, 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER', MASK * 3, 'none']


def test_an_occurrence_never_spans_two_texts():
    assert SecretFinder({'ab'}, MASK).scrubbed(['xa', 'bx']) == ['xa', 'bx']


def test_where_two_occurrences_overlap_the_longest_is_masked_and_no_secret_remains():
    assert SecretFinder({'abc', 'cde'}, MASK).scrubbed('abcde') == MASK + 'de'
    assert SecretFinder({'abcd', 'cdef'}, MASK).scrubbed('xabcdefx') == 'x%sefx' % MASK
