# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading free text for keys and their values, whatever shape the text gives them: what common/secrets.py judges
secret is masked there (masked_text); this module knows the shapes, not what is secret.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# Free text names a secret in many shapes: a log line (ipmi_password: x), a command line (--password x,
# password=x), a Python repr or JSON ({'password': 'x'}, {"password": "x"}), YAML, JSON quoted inside JSON
# ({\"password\": \"x\"}). Each is read as one key, one separator and one value: a key named like a secret,
# bare or quoted (a quote may be escaped: \' \" \\"); then ':' or '=' (spaces around allowed), or the spaces
# after a --flag, or the comma between a quoted option and its value in an argument list (['--password', 'x']); then
# one value, scanned by _value_end: quoted (up to the same quote, escapes inside), a bracketed list or dictionary
# (whole), or a bare word. An XML element (<Password>x</Password>, <wsman:Password>) is a key too: its value is its
# text, up to the next tag; and so is a short option on the line of a command that reads a secret from it (ipmitool
# -P x, ['ipmitool', '-P', 'x']), whatever its letter names.
_KEY = re.compile(
    r'''(?P<open>\\*['"])(?P<quoted>[^'"\\\n]{1,100})(?P=open)'''
    r'''|<(?:[\w.-]+:)?(?P<element>\w[\w.-]*)(?=(?:\s[^<>]*)?>)'''
    r'''|(?<![\w-])(?:(?P<flag>-+)(?P<option>\w[\w.-]*)|(?P<bare>\w[\w-]*))(?P<close>\\*['"])?''')
_SEPARATOR = re.compile(r'[ \t]*(?:=>|[:=]{1,2})[ \t]*')
_FLAG_SEPARATOR = re.compile(r'[ \t]+')
_LIST_SEPARATOR = re.compile(r'''[ \t]*,[ \t]*(?=\\*['"])''')
# The rest of an element's start tag (its attributes), and its text.
_TAG_END = re.compile(r'(?:\s[^<>]*)?>')
_ELEMENT_TEXT = re.compile(r'[^<]+')
# A short option (-P), alone or quoted in an argument list ('-P'), or with its value attached as getopt reads it
# (-Ps3cret): secret or not by the command whose line it is on.
_SHORT_OPTION = re.compile(r'-(?P<letter>[A-Za-z])(?P<attached>\S*)')
# The words of a line before an option, the command among them (a path too: /usr/bin/ipmitool).
_COMMAND_WORD = re.compile(r'''[^\s'"\[\](),=]+''')
# An HTTP authorization written bare (Authorization: Bearer abc.def, a header in a log line): its scheme and its
# token are one value, masked together. A Digest authorization's parameters are one value up to the end of the line:
# its response is a hash of the password, to be guessed offline (username="admin", ..., response="6629...").
_AUTH_SCHEME = re.compile(r'(?:Basic|Bearer|Negotiate|NTLM|Token)[ \t]+(?=[\w.~+/-])', re.IGNORECASE)
_DIGEST = re.compile(r'Digest[ \t]+[^\r\n]*', re.IGNORECASE)
_QUOTE = re.compile(r'''\\*['"]''')
_WORD_PARTS = re.compile(r'[_.-]+|(?<=[a-z])(?=[A-Z])')
# A bare value ends at a space, a comma, a semicolon, an ampersand (a URL query), a closing bracket or a
# quote (escaped or not): "password=x, then", "{password: x}", "'password=x'".
_BARE_VALUE = re.compile(r'''(?:[^\s,;&)\]}'"\\]|\\+(?![\\'"]))+''')
# A setting quoted as a pair ({'name': 'AdminPassword', 'value': 'x'}): the text before its value key.
_PAIR_NAME = re.compile(r'''name\\*['"]?[ \t]*[:=][ \t]*\\*['"]?(?P<name>[^'"\\{},\n]{1,100})\\*['"]?\s*,\s*\\*['"]?$''')
# A key of a setting's dictionary that says its value is secret, in any order: its name ({'value': 'x', 'name':
# 'AdminPassword'}), the path it sets ({'path': '/driver_info/ipmi_password', 'value': 'x'}), its registry's type
# ({'attribute_type': 'Password', ...}); quoted, up to its quote, or a bare word.
_PAIR_KEY = re.compile(r'''(?<![\w-])\\*['"]?(?:name|path|attribute_type)\\*['"]?[ \t]*[:=][ \t]*'''
                       r'''(?:\\*['"](?P<quoted>[^'"\\\n]{1,100})|(?P<bare>[\w./-]{1,100}))''')
# How far before a value key the opening bracket of its dictionary is looked for.
_PAIR_REACH = 1000


class FreeText(object):
    """Masks the values of the keys a judge calls secret, in free text of any shape."""

    def __init__(self, is_secret, ends_in_secret, by_key, short_options, mask):
        """is_secret(name): the value of a key so named is secret; ends_in_secret(word): a word before a colon ends
        in a secret's name; by_key(name): a dictionary under that key is judged key by key; short_options(command):
        the letters of the short options whose value is secret on that command's line; mask: what is shown."""
        self.is_secret, self.ends_in_secret, self.by_key = is_secret, ends_in_secret, by_key
        self.short_options, self.mask = short_options, mask

    def masked(self, text):
        """text with the value of every secret key it names replaced by the mask."""
        parts = []
        done = 0
        for start, end, shown in self._secret_values(text):
            parts.append(text[done:start])
            parts.append(shown)
            done = end
        parts.append(text[done:])
        return ''.join(parts)

    def values(self, text):
        """The values masked hides in text, each without the quotes masked keeps around its mask."""
        for start, end, shown in self._secret_values(text):
            before, _mask, after = shown.partition(self.mask)
            value = text[start + len(before):end - len(after)]
            if value:
                yield value

    def _secret_values(self, text):
        """(start, end, shown) of the value of each secret key text names, in order: shown is what masked writes."""
        position = 0
        commands = _CommandLines(text, self.short_options)
        while True:
            key = _KEY.search(text, position)
            if key is None:
                return
            start = self._value_start(text, key, commands)
            if start is None:
                # A quoted text that is no secret key may hold one (a quote opening a phrase): read inside it.
                position = key.start() + len(key.group('open')) if key.group('open') else key.end()
                continue
            if text[start] == '{' and self.by_key(_key_name(key)):
                position = start  # a config drive dictionary is judged key by key, as no_log_values judges it
                continue
            if key.group('element'):
                end, shown = _ELEMENT_TEXT.match(text, start).end(), self.mask  # its text, up to the next tag
            else:
                end, shown = self._value_end(text, start)
            yield start, end, shown
            position = end

    def _value_start(self, text, key, commands):
        """Where the value of a secret-named key begins, or None when key is no such key (or has no value)."""
        name = _key_name(key)
        short = _secret_short_option(key, commands)
        if not (self.is_secret(name) or name.lower() == 'value' and self._in_secret_pair(text, key.start()) or short):
            return None
        if short and short.group('attached'):
            return key.start('quoted' if key.group('quoted') else 'flag') + short.start('attached')
        if key.group('quoted') and _SEPARATOR.search(key.group('quoted')):
            return None  # a phrase that holds a key and its value (' password: x ': ...), read inside, is no key
        if key.group('element'):
            tag = _TAG_END.match(text, key.end())
            return tag.end() if _ELEMENT_TEXT.match(text, tag.end()) else None
        separator = _SEPARATOR.match(text, key.end())
        if separator is None and key.group('flag') and not key.group('close'):
            separator = _FLAG_SEPARATOR.match(text, key.end())
        if separator is None and (key.group('open') and name.startswith('-') or key.group('flag') and key.group('close')):
            separator = _LIST_SEPARATOR.match(text, key.end())
        if separator is None or separator.end() == len(text) or text[separator.end()] in '\n\r':
            return None
        if key.group('bare') and '=' not in separator.group() and name.lower() != 'value' \
                and not self._names_a_secret(text, key):
            return None  # (a bare value key reached here in a secret setting's pair: {value: x, name: AdminPwd})
        return separator.end()

    def _names_a_secret(self, text, key):
        """Whether a bare word before a colon is a secret-named key (ipmi_password: x, X-Auth-Token: x, SetupToken: x).

        A colon also ends a label (node rack-secrets-01: ...) or a field path (bios_settings.AdminPassword: ...) that
        this collection's own messages write before prose: a key is a word whose last part names a secret (the last
        of its parts split at _ - and capitals), not a word after a dot.
        """
        name = key.group('bare')
        if key.start() and text[key.start() - 1] == '.':
            return False
        last = _WORD_PARTS.split(name)[-1]
        return self.is_secret(last) or self.ends_in_secret(name)

    def _in_secret_pair(self, text, position):
        """Whether the value key at position is a secret setting's: the name of one before it (name: AdminPassword,
        value: ...), or its dictionary says so by a key before or after it ({'value': ..., 'name': 'AdminPassword'})."""
        pair = _PAIR_NAME.search(text[max(0, position - 200):position])
        if pair is not None and self.is_secret(pair.group('name')):
            return True
        start = _enclosing_brace(text, position)
        if start is None:
            return False
        return any(self.is_secret(key.group('quoted') or key.group('bare'))
                   for key in _PAIR_KEY.finditer(_own_keys(text, start, _bracket_end(text, start))))

    def _value_end(self, text, start):
        """(end, shown): where the value that begins at start ends, and what is shown instead.

        A quoted value ends at its own quote preceded by exactly as many backslashes as opened it (an escaped quote
        or a backslash before the quote reads as more of the value: masking too much only hides); a list or a
        dictionary at its closing bracket, quotes inside skipped; a bare value at a space, a comma or a bracket (an
        authorization's scheme and the token after it are one value: Bearer abc.def). A value that never ends runs to
        the end of the text.
        """
        opening = _QUOTE.match(text, start)
        if opening:
            close = _closing_quote(text, opening.end(), opening.group())
            if close is None:
                return len(text), opening.group() + self.mask
            return close, opening.group() + self.mask + opening.group()
        if text[start] in '{[':
            return _bracket_end(text, start), self.mask
        digest = _DIGEST.match(text, start)
        if digest:
            return digest.end(), self.mask
        scheme = _AUTH_SCHEME.match(text, start)
        bare = _BARE_VALUE.match(text, scheme.end() if scheme else start)
        return (bare.end(), self.mask) if bare else (start, '')


class _CommandLines(object):
    """The command each option of a text is on the line of: the last command on its line before it that short_options
    knows (ipmitool ... -P x). Options are asked about left to right, so each line is read once."""

    def __init__(self, text, short_options):
        self.text = text
        self.short_options = short_options
        self.read = 0
        self.letters = ''

    def letters_at(self, position):
        newline = self.text.rfind('\n', self.read, position)
        if newline >= 0:
            self.read, self.letters = newline + 1, ''
        for word in _COMMAND_WORD.finditer(self.text, self.read, position):
            self.letters = self.short_options(word.group().rsplit('/', 1)[-1]) or self.letters
        self.read = position
        return self.letters


def _secret_short_option(key, commands):
    """The _SHORT_OPTION match of key when it is a short option (-P, -Ps3cret, or '-P' in an argument list) that the
    command whose line it is on reads a secret from; else None."""
    if not (key.group('quoted') or key.group('flag') == '-'):
        return None
    option = _SHORT_OPTION.fullmatch(key.group('quoted') or '-' + key.group('option'))
    return option if option is not None and option.group('letter') in commands.letters_at(key.start()) else None


def _key_name(key):
    return key.group('quoted') or key.group('element') or key.group('option') or key.group('bare')


def _closing_quote(text, position, quote):
    """The end of the quote (as opened, with its backslashes) that closes a quoted text, from position; or None."""
    while True:
        index = text.find(quote, position)
        if index < 0:
            return None
        if len(quote) == 1 and text.startswith(quote, index + 1):
            position = index + 2  # a quote doubled, as YAML and CSV escape it: 'it''s'
        elif text[index - 1] == '\\':
            position = index + 1  # an escaped quote, or a backslash before it
        else:
            return index + len(quote)


def _pieces(text, start, end, enter_open_quotes=False):
    """Each piece of text[start:end], left to right, as (index, close): a quoted text whole (close: where it ends),
    else one character (close: None). A quoted text that does not end before end is read to end, or, with
    enter_open_quotes, only its quote is passed over and what it holds is read on (a document quoted whole)."""
    index = start
    while index < end:
        quote = _QUOTE.match(text, index)
        if quote is None:
            yield index, None
            index += 1
            continue
        close = _closing_quote(text, quote.end(), quote.group())
        if close is None or close > end:
            if enter_open_quotes:
                index = quote.end()
                continue
            close = end
        yield index, close
        index = close


def _bracket_end(text, start):
    depth = 0
    for index, close in _pieces(text, start, len(text)):
        if close is None and text[index] in '{[':
            depth += 1
        elif close is None and text[index] in '}]':
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def _enclosing_brace(text, position):
    """Where the dictionary that holds position opens (its '{'), read from up to _PAIR_REACH back, the quoted texts
    that end before position skipped (one that holds position, JSON in JSON, is read inside); None outside one."""
    opened = []
    for index, close in _pieces(text, max(0, position - _PAIR_REACH), position, enter_open_quotes=True):
        if close is None and text[index] in '{[':
            opened.append(index)
        elif close is None and text[index] in '}]' and opened:
            opened.pop()
    return opened[-1] if opened and text[opened[-1]] == '{' else None


def _own_keys(text, start, end):
    """The text of the dictionary that opens at start, up to end, without what is nested in it: its own keys (quoted
    texts whole, whatever brackets they hold, but a document quoted in it: a quoted text that holds quotes of its
    own, whose keys are not this dictionary's)."""
    kept = []
    depth = 0
    for index, close in _pieces(text, start, end):
        if close is not None:
            opening = _QUOTE.match(text, index).end()
            if depth == 1 and not _QUOTE.search(text, opening, max(opening, close - (opening - index))):
                kept.append(text[index:close])
        elif text[index] in '{[':
            depth += 1
        elif text[index] in '}]':
            depth -= 1
        elif depth == 1:
            kept.append(text[index])
    return ''.join(kept)
