# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How secrets.scrubbed removes given secrets from every text of a value in one pass: Ansible's remove_values
(ansible.module_utils.common.parameters), whose cost grows with texts x secrets, at a cost that grows with the
texts. What is secret is decided in common/secrets.py, never here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import bisect
import datetime
import itertools
import re
from collections.abc import Mapping, Sequence, Set as AbstractSet

# What Ansible's remove_values puts in place of a text that is a secret as a whole.
NO_LOG_PLACEHOLDER = 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'

_DATES = (datetime.date, datetime.time)  # datetime.datetime is a date

# What str() makes of any int or float (1e+20, -0.5, nan, inf), and of some other texts.
_NUMBER_TEXT = re.compile(r'[-+.0-9a-z]+')


class SecretFinder(object):
    """Every occurrence of a set of secrets in texts, in one pass over the texts.

    The secrets are indexed by their first ``shortest`` characters (the length of the shortest secret). The texts
    of a value long enough to hold a secret are joined into one, with a separator no secret holds; it is read only
    in the runs of characters secrets are made of that are long enough to hold one (one regular expression, at the
    speed of C); at each position of such a run, one dictionary lookup of the ``shortest`` characters from there
    (a loop in C too) tells whether a secret may start there, and only there is a trie of the secrets' further
    characters walked. The cost is the length of the texts (times the depth of the trie where a secret's first
    characters occur), never texts x secrets.
    """

    def __init__(self, no_log_strings, mask):
        self.mask = mask
        secrets = set()
        for secret in no_log_strings:
            if isinstance(secret, bytes):
                secret = secret.decode('utf-8', 'surrogateescape')
            elif not isinstance(secret, str):
                secret = str(secret)
            if secret:
                secrets.add(secret)
        self.secrets = frozenset(secrets)
        self.shortest = min((len(secret) for secret in secrets), default=0)
        self.heads = {}
        for secret in secrets:
            node = self.heads.setdefault(secret[:self.shortest], {})
            for char in secret[self.shortest:]:
                node = node.setdefault(char, {})
            node[''] = len(secret)
        chars = set(''.join(secrets))
        self.separator = next(char for char in map(chr, itertools.count()) if char not in chars)
        self.runs = re.compile('[%s]{%d,}' % (''.join(_in_class(char) for char in sorted(chars)), self.shortest)) \
            if secrets else None

    def scrubbed(self, value, other=None):
        if not self.secrets:
            return _copied(value, {}, other)
        texts = []
        plain = self._texts(value, texts)
        shown = self._shown_texts(texts)
        if plain:
            # Numbers are looked at only where a text a number could be written as is replaced.
            return _rebuilt(value, shown, any(map(_NUMBER_TEXT.fullmatch, shown))) if shown else value
        return _copied(value, shown, other)

    def _texts(self, value, texts):
        """Add to texts every text of value that may hold a secret (numbers as their text); whether value is made
        of dictionaries, lists, texts, numbers, True, False and None only."""
        kind = type(value)
        if kind is str:
            if len(value) >= self.shortest:
                texts.append(value)
            return True
        if kind is dict or kind is list:
            plain = True
            for item in value.values() if kind is dict else value:
                kind = type(item)
                if kind is str:
                    if len(item) >= self.shortest:
                        texts.append(item)
                elif item is not None and kind is not bool and kind is not int:
                    plain = self._texts(item, texts) and plain
                elif kind is int:
                    texts.append(str(item))
            return plain
        if value is None or value is True or value is False:
            return True
        if isinstance(value, bytes):
            texts.append(value.decode('utf-8', 'surrogateescape'))
        elif isinstance(value, (str, int, float)):
            texts.append(str(value))
        elif isinstance(value, Mapping):
            for item in value.values():
                self._texts(item, texts)
        elif isinstance(value, (Sequence, AbstractSet)):
            for item in value:
                self._texts(item, texts)
        return type(value) in (int, float)  # any other is copied (a tuple becomes a list), or other's

    def _shown_texts(self, texts):
        """{text: the text as it may be shown} for every text of texts that holds a secret."""
        shown = dict((text, NO_LOG_PLACEHOLDER) for text in self.secrets.intersection(texts))
        joined = self.separator.join(texts)
        starts = list(itertools.accumulate([0] + [len(text) + 1 for text in texts]))
        hits = {}
        for start, length in self._found(joined):
            index = bisect.bisect_right(starts, start) - 1
            hits.setdefault(index, []).append((start - starts[index], length))
        for index, found in hits.items():
            text = texts[index]
            if text not in shown:
                shown[text] = _masked_occurrences(text, found, self.mask)
        return shown

    def _found(self, text):
        """(start, length) of every occurrence of every secret in text, overlapping ones too."""
        shortest = self.shortest
        heads = self.heads
        for run in self.runs.finditer(text):
            begin, end = run.span()
            starts = range(begin, end - shortest + 1)
            for start in itertools.compress(starts, map(heads.__contains__, map(
                    text.__getitem__, map(slice, starts, range(begin + shortest, end + 1))))):
                node = heads[text[start:start + shortest]]
                position = start + shortest
                while True:
                    if '' in node:
                        yield start, node['']
                    if position >= end:
                        break
                    node = node.get(text[position])
                    if node is None:
                        break
                    position += 1


def _masked_occurrences(text, found, mask):
    """text with the occurrences found (start, length) masked as Ansible masks them one secret after the other,
    the longest first: an occurrence that overlaps one masked before is no longer in the text then."""
    masked = bytearray(len(text))
    kept = []
    for start, length in sorted(found, key=lambda hit: (-hit[1], hit[0])):
        if masked.find(1, start, start + length) < 0:
            masked[start:start + length] = b'\x01' * length
            kept.append((start, length))
    parts = []
    position = 0
    for start, length in sorted(kept):
        parts.append(text[position:start])
        parts.append(mask)
        position = start + length
    parts.append(text[position:])
    return ''.join(parts)


def _rebuilt(value, shown, numbers):
    """A value made of dictionaries, lists and scalars with the texts of shown replaced: a copy of the dictionaries
    and lists that hold one (at any depth), the others as they are. With the echo of a task's arguments, only the
    path to each password is copied, not the whole result."""
    kind = type(value)
    if kind is dict or kind is list:
        copy = None
        for key, item in (value.items() if kind is dict else enumerate(value)):
            item_kind = type(item)
            if item_kind is str:
                new = shown.get(item, item)
            elif item_kind is dict or item_kind is list:
                new = _rebuilt(item, shown, numbers)
            elif numbers and (item_kind is int or item_kind is float):
                new = NO_LOG_PLACEHOLDER if str(item) in shown else item
            else:
                continue
            if new is not item:
                if copy is None:
                    copy = kind(value)  # dict(value) or list(value): a shallow copy
                copy[key] = new
        return value if copy is None else copy
    if kind is str:
        return shown.get(value, value)
    if (kind is int or kind is float) and str(value) in shown:
        return NO_LOG_PLACEHOLDER
    return value


def _copied(value, shown, other):
    """A copy of value, as remove_values makes it, with the texts of shown (a dictionary) replaced; other(value) for
    a value of a type it does not know."""
    kind = type(value)
    if kind is str:
        return shown.get(value, value)
    if kind is dict:
        return {key: _copied(item, shown, other) for key, item in value.items()}
    if kind is list:
        return [_copied(item, shown, other) for item in value]
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return shown.get(str(value), value)
    if isinstance(value, bytes):
        text = value.decode('utf-8', 'surrogateescape')
        if text not in shown:
            return value
        if shown[text] is NO_LOG_PLACEHOLDER:
            return NO_LOG_PLACEHOLDER
        try:
            return shown[text].encode('utf-8', 'surrogateescape')
        except UnicodeEncodeError:
            return shown[text].encode('utf-8', 'replace')
    if isinstance(value, (int, float)):
        return NO_LOG_PLACEHOLDER if str(value) in shown else value
    if isinstance(value, Mapping):
        return dict((key, _copied(item, shown, other)) for key, item in value.items())
    if isinstance(value, Sequence):
        return [_copied(item, shown, other) for item in value]
    if isinstance(value, AbstractSet):
        return set(_copied(item, shown, other) for item in value)
    if isinstance(value, _DATES):
        return value
    if other is not None:
        return other(value)
    raise TypeError('Value of unknown type: %s, %s' % (type(value), value))


def _in_class(char):
    """A character as a member of a regular expression's character class."""
    return '\\' + char if char in '\\]^-[' else char
