# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Free text read for keys and values: the shapes are known here, what is secret is the judge's (common/secrets.py;
its masking of texts is tested in test_secrets.py)."""

from __future__ import absolute_import, division, print_function
__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.free_text import FreeText


def colour_is_secret(name):
    return name.lower() == 'colour'


def no_options(command):
    return ''


def test_only_what_the_judge_calls_secret_is_masked_in_every_shape():
    text = FreeText(colour_is_secret, lambda word: False, lambda name: False, no_options, '#')
    assert text.masked("colour: red, password: x") == 'colour: #, password: x'
    assert text.masked("--colour red {'colour': 'red'} {\\\"colour\\\": \\\"red\\\"}") == (
        "--colour # {'colour': '#'} {\\\"colour\\\": \\\"#\\\"}")


def test_a_word_before_a_colon_is_a_key_only_where_it_ends_in_a_secrets_name():
    def has_colour(name):
        return 'colour' in name.lower()

    label = 'colour_chart: red'  # a label before prose, unless the judge says the word ends in a secret's name
    assert FreeText(has_colour, lambda word: False, lambda name: False, no_options, '#').masked(label) == label
    assert FreeText(has_colour, lambda word: True, lambda name: False, no_options, '#').masked(label) == 'colour_chart: #'
    assert FreeText(has_colour, lambda word: False, lambda name: False, no_options, '#').masked('colour_chart=red') == (
        'colour_chart=#')


def test_a_dictionary_the_judge_reads_key_by_key_keeps_what_is_not_secret():
    text = FreeText(lambda name: name in ('drive', 'colour'), lambda word: False, lambda name: name == 'drive', no_options, '#')
    assert text.masked("drive: {size: 5, colour: red}") == 'drive: {size: 5, colour: #}'
    assert FreeText(lambda name: name == 'drive', lambda word: False, lambda name: False, no_options, '#').masked(
        "drive: {size: 5, colour: red}") == 'drive: #'


def test_a_short_option_is_secret_by_the_command_whose_line_it_is_on():
    def paint_options(command):
        return 'c' if command == 'paint' else ''

    text = FreeText(colour_is_secret, lambda word: False, lambda name: False, paint_options, '#')
    assert text.masked('/usr/bin/paint -s 2 -c red -x 1\nfill -c blue -s 2') == '/usr/bin/paint -s 2 -c # -x 1\nfill -c blue -s 2'
    # An argument list, as a program's arguments are quoted: a short option or a long one, its value after a comma.
    assert text.masked("['paint', '-c', 'red', '-s', '2'] ['--colour', 'blue']") == "['paint', '-c', '#', '-s', '2'] ['--colour', '#']"


def test_an_xml_element_is_a_key_and_its_text_its_value():
    text = FreeText(colour_is_secret, lambda word: False, lambda name: False, no_options, '#')
    assert text.masked('<Body><n1:Colour kind="x">red &amp; blue</n1:Colour><Size>2</Size><colour></colour></Body>') == (
        '<Body><n1:Colour kind="x">#</n1:Colour><Size>2</Size><colour></colour></Body>')
