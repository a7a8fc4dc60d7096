# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A node's network_data (API 1.66): the static network configuration of its ramdisk, in the OpenStack
network_data.json format. It is declared whole: the value given replaces the node's, and {} clears it.

Ironic checks the document against its schema when it is written; its shape is checked here first, so that in a
task of many nodes a malformed one is refused before any node is written.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# The parts every network_data document has (Ironic's network-data-schema.json requires them), each a list.
SECTIONS = ('links', 'networks', 'services')


def declaration_errors(declared):
    if 'network_data' not in declared:
        return []
    document = declared['network_data']
    if document == {}:
        return []
    missing = [section for section in SECTIONS if section not in document]
    if missing:
        return ['network_data lacks %s: a network_data document has links, networks and services (each a list, '
                'possibly empty); {} clears it.' % ', '.join(missing)]
    errors = []
    for section in SECTIONS:
        entries = document[section]
        if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
            errors.append('network_data.%s must be a list of dictionaries.' % section)
    return errors


def operations(current, wanted):
    """The JSON patch that makes the node's network_data the declared one. Ironic checks a value it is sent against its
    schema, which {} fails: clearing removes the field, which Ironic then shows as {} (or null)."""
    if (current or {}) == wanted:
        return []
    if wanted == {}:
        return [{'op': 'remove', 'path': '/network_data'}]
    return [{'op': 'replace', 'path': '/network_data', 'value': wanted}]
