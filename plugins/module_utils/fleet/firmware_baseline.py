# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A firmware baseline per hardware model, as data: its checks, and each node's compliance with it and plan.

A baseline is a list of models::

    - name: Contoso R640                  # optional: how the report names the model (else its match)
      match: {vendor: Contoso, model: R640}   # or {properties: {hw_model: r640}}; any of the three keys
      components:                         # in the order a campaign updates them (BMC before BIOS, as vendors say)
        - component: bmc                  # bios, bmc or nic:<id>: the names Ironic's redfish firmware interface records
                                          # (or nic:*, below)
          version: '2.10'                 # the target
          url: http://images.example/bmc-2.10.bin
          stepping_stones:                # versions a node must pass through on the way up, lowest first
            - {version: '2.8', url: http://images.example/bmc-2.8.bin}
          allow_downgrade: false          # a node ahead of the target is left as it is (the default)
        - component: 'nic:*'              # every NIC the node records (nic:<serial> differs from node to node)
          version: '22.40'
          url: http://images.example/nic-22.40.bin

Why this shape: a component's ``component``, ``version`` and ``url`` are those of baremetal_hardware's ``firmware``
entries (and of Ironic's ``firmware.update`` step), so a step of a plan is one such entry. The order of ``components``
is the order of the updates: one list holds it, where a separate ``order`` key would be a second place to keep in
step with it. A stepping stone has its own image URL: it is a step of its own.

A NIC: Ironic names its component ``nic:<SerialNumber>`` (``nic:<Id>`` when the adapter reports no serial), so one
model's NIC has another name on every node. ``nic:*`` (EVERY_NIC, the only pattern) is every component of the node
whose name starts with ``nic:``, each against the entry's target, url, stepping stones and allow_downgrade; a NIC the
model names itself (``nic:NIC.Slot.1``) is judged by its own entry, and ``nic:*`` covers the others. In a node's
compliance the entry becomes, in its place, one item per NIC (sorted by name), each with its own name (what
``firmware.update`` takes) and ``baseline_component: nic:*``; a node that records no NIC has one unknown item.

Everything here is pure: check_baseline refuses a bad baseline before anything is read from Ironic, and
node_compliance judges one node from what was read (the node, with its ``properties`` and ``firmware_interface``,
and the firmware components Ironic recorded for it).

Versions are vendor strings, read as their numbers and words (separators aside). Two versions compare in a natural
order, numbers as numbers (2.10 is above 2.9, ``U30 v2.76`` above ``U30 v2.8``), decided at the first place they
differ: there a number against a number decides; a word against a number, or another word, does not compare. Where one
is the other and more, more numbers make it higher unless all zero (``2.10.1`` is above ``2.10``; ``2.10.0`` is
``2.10``) and a word does not compare (``1.0-beta`` and ``1.0``). What does not compare is unknown, and reported as
such, never guessed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.errors import BaremetalError
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.secrets import masked_text, text_secrets

MODEL_KEYS = ('name', 'match', 'components')
MATCH_KEYS = ('vendor', 'model', 'properties')
COMPONENT_KEYS = ('component', 'version', 'url', 'stepping_stones', 'allow_downgrade')
STONE_KEYS = ('version', 'url')

# The argument spec of a baseline, for every module that takes one (baremetal_fleet_report, baremetal_firmware_campaign):
# its shape below the models is check_baseline's, which names every problem with its fix.
BASELINE_SPEC = dict(type='list', elements='dict', options=dict(
    name=dict(type='str'),
    match=dict(type='dict', required=True),
    components=dict(type='list', elements='dict', required=True),
))

# The components Ironic's redfish firmware interface records and updates (ironic/drivers/modules/redfish/utils.py:
# FIRMWARE_COMPONENTS and NIC_COMPONENT_PREFIX; its firmware.update step accepts these names only).
FIRMWARE_COMPONENTS = ('bios', 'bmc')
NIC_COMPONENT_PREFIX = 'nic:'
# The baseline component that means every NIC a node records: Ironic names a NIC after its serial number
# (nic:<SerialNumber>, else nic:<Id>), a name that differs from node to node of one model. The only pattern there is.
EVERY_NIC = NIC_COMPONENT_PREFIX + '*'


def is_nic(name):
    """Whether Ironic's component name is a network adapter's (nic:<serial> or nic:<id>, or the pattern nic:*)."""
    return str(name).startswith(NIC_COMPONENT_PREFIX)


# A component's compliance.
AT_TARGET, BEHIND, AHEAD, UNKNOWN = 'at_target', 'behind', 'ahead', 'unknown'
STATUSES = (AT_TARGET, BEHIND, AHEAD, UNKNOWN)

_TOKEN = re.compile(r'\d+|[^\W\d_]+')


# -- versions ----------------------------------------------------------------------------------------------------

def version_tokens(version):
    """The numbers (as numbers) and words (in lower case) of a version, in order; separators are not kept."""
    return tuple(int(token) if token.isdigit() else token.lower() for token in _TOKEN.findall(str(version)))


def compare_versions(left, right):
    """-1, 0 or 1 as left is below, the same as or above right; None when they do not compare (module docstring)."""
    first, second = version_tokens(left), version_tokens(right)
    if not first or not second:
        return None
    for one, other in zip(first, second):
        if isinstance(one, int) != isinstance(other, int) or (isinstance(one, str) and one != other):
            return None
        if one != other:
            return -1 if one < other else 1
    rest = first[len(second):] or second[len(first):]
    if any(isinstance(token, str) for token in rest):
        return None
    if not any(rest):
        return 0
    return 1 if len(first) > len(second) else -1


# -- the baseline's checks (before any read) ---------------------------------------------------------------------

def is_component_name(name):
    """Whether a baseline may name this component: bios, bmc, nic:<id> (as Ironic's redfish firmware interface
    names them) or nic:* (every NIC the node records). No other name holds a '*'."""
    return isinstance(name, str) and (name in FIRMWARE_COMPONENTS or name == EVERY_NIC or (
        is_nic(name) and len(name) > len(NIC_COMPONENT_PREFIX) and '*' not in name))


def model_label(model):
    """How the report names a model: its name, else its match (vendor and model, then its properties)."""
    if model.get('name'):
        return model['name']
    match = model.get('match') or {}
    parts = [match[key] for key in ('vendor', 'model') if match.get(key)]
    parts += ['%s=%s' % (key, value) for key, value in sorted((match.get('properties') or {}).items())]
    return ' '.join(str(part) for part in parts)


def _text(value):
    return isinstance(value, str) and bool(value.strip())


def _unknown_keys(where, entry, allowed, what):
    return ['%s.%s is not a key of %s; allowed: %s.' % (where, key, what, ', '.join(allowed))
            for key in sorted(set(entry) - set(allowed), key=str)]


def _version_problem(where, version, what):
    """The problem of a version that is no text, or None: a number YAML read (2.10 reads as 2.1) says to quote it."""
    if isinstance(version, (int, float)) and not isinstance(version, bool):
        return ('%s.version is the number %s, not text: YAML reads 2.10 as 2.1. Quote the version as the vendor writes '
                'it, for example version: "2.10".' % (where, version))
    if not _text(version):
        return '%s.version is required: %s, a non-empty string.' % (where, what)
    return None


def _url_problems(where, url):
    if not _text(url):
        return ['%s.url is required: the URL of the image, a non-empty string.' % where]
    if text_secrets(url):
        return ['%s.url %s holds a secret (a password or a signature in the URL): the baseline is shown in reports and '
                'plans. Give a URL without it (an image server that needs no credentials in the URL).'
                % (where, masked_text(url))]
    return []


def _match_problems(where, match):
    if not isinstance(match, dict) or not any(match.get(key) for key in MATCH_KEYS):
        return ['%s.match is required: a dictionary with vendor and model (as Ironic reports them) or properties '
                '(node properties and their values), for example {vendor: Contoso, model: R640}.' % where]
    problems = _unknown_keys(where + '.match', match, MATCH_KEYS, 'a match')
    for key in ('vendor', 'model'):
        if key in match and not _text(match[key]):
            problems.append('%s.match.%s must be a non-empty string.' % (where, key))
    properties = match.get('properties')
    if 'properties' in match and not (isinstance(properties, dict) and properties and all(
            isinstance(value, (str, int, float, bool)) for value in properties.values())):
        problems.append('%s.match.properties must be a dictionary of node property names and their values '
                        '(text, numbers, true or false), for example {hw_model: r640}.' % where)
    return problems


def _stone_problems(where, component):
    stones = component.get('stepping_stones')
    if stones is None:
        return []
    if not isinstance(stones, list):
        return ['%s.stepping_stones must be a list of {version, url}, lowest version first.' % where]
    problems = []
    target = component.get('version')
    previous = None
    for index, stone in enumerate(stones):
        here = '%s.stepping_stones[%d]' % (where, index)
        if not isinstance(stone, dict):
            problems.append('%s must be a dictionary with version and url.' % here)
            continue
        problems.extend(_unknown_keys(here, stone, STONE_KEYS, 'a stepping stone'))
        problems.extend(_url_problems(here, stone.get('url')))
        version = stone.get('version')
        problem = _version_problem(here, version, 'the version passed through')
        if problem:
            problems.append(problem)
            continue
        if not _text(target):
            continue
        order = compare_versions(version, target)
        if order is None:
            problems.append("%s.version '%s' cannot be compared with the target '%s' (not the same shape of version): "
                            'the path cannot reach the target. Give versions of one shape, as the vendor numbers them.'
                            % (here, version, target))
        elif order >= 0:
            problems.append("%s.version '%s' is not below the target '%s': the path cannot reach the target. A "
                            'stepping stone is a version passed through on the way up; remove it or lower it.'
                            % (here, version, target))
        elif previous is not None and compare_versions(previous, version) != -1:
            problems.append("%s.version '%s' does not come after '%s': the path goes down. List the stepping stones "
                            'lowest first, each once.' % (here, version, previous))
        if order is not None:
            previous = version
    return problems


def _component_problems(where, component, seen):
    if not isinstance(component, dict):
        return ['%s must be a dictionary with component, version and url.' % where]
    problems = _unknown_keys(where, component, COMPONENT_KEYS, 'a component')
    name = component.get('component')
    if not is_component_name(name):
        problems.append('%s.component %r is not a component Ironic records; use bios, bmc or nic:<id> (as the node\'s '
                        'firmware components name it: GET /v1/nodes/<node>/firmware), or %s for every NIC the node '
                        'records (the only pattern a baseline takes).' % (where, name, EVERY_NIC))
    elif name in seen:
        problems.append("%s.component '%s' is declared twice in this model; keep one entry (put its intermediate "
                        'versions in stepping_stones).' % (where, name))
    else:
        seen.add(name)
    version = component.get('version')
    problem = _version_problem(where, version, 'the target version')
    if problem:
        problems.append(problem)
    elif not version_tokens(version):
        problems.append("%s.version '%s' has no number or word to compare; give the version as the vendor numbers it."
                        % (where, version))
    problems.extend(_url_problems(where, component.get('url')))
    if 'allow_downgrade' in component and not isinstance(component['allow_downgrade'], bool):
        problems.append('%s.allow_downgrade must be true or false.' % where)
    problems.extend(_stone_problems(where, component))
    return problems


def _match_key(match):
    """What makes two matches the same (vendor and model compared as Ironic's are: case aside)."""
    return (str(match.get('vendor') or '').lower(), str(match.get('model') or '').lower(),
            tuple(sorted((str(key), str(value)) for key, value in (match.get('properties') or {}).items())))


def baseline_problems(baseline):
    """What is wrong with a baseline, each naming where and how to fix it; [] when it is valid."""
    if not isinstance(baseline, list) or not baseline:
        return ['firmware_baseline is empty: give at least one model, each with match and components '
                '(or leave the option out).']
    problems = []
    matches = {}
    for index, model in enumerate(baseline):
        where = 'firmware_baseline[%d]' % index
        if not isinstance(model, dict):
            problems.append('%s must be a dictionary with match and components.' % where)
            continue
        if _text(model.get('name')):
            where = '%s (%s)' % (where, model['name'])
        elif model.get('name') is not None:
            problems.append('%s.name must be a non-empty string.' % where)
        problems.extend(_unknown_keys(where, model, MODEL_KEYS, 'a model'))
        match_problems = _match_problems(where, model.get('match'))
        problems.extend(match_problems)
        if not match_problems:
            key = _match_key(model['match'])
            if key in matches:
                problems.append('%s.match is the match of %s too: a model is declared once. Merge the two.'
                                % (where, matches[key]))
            matches.setdefault(key, where)
        components = model.get('components')
        if not isinstance(components, list) or not components:
            problems.append('%s.components is required: a non-empty list of {component, version, url}.' % where)
            continue
        seen = set()
        for number, component in enumerate(components):
            problems.extend(_component_problems('%s.components[%d]' % (where, number), component, seen))
    return problems


def check_baseline(baseline):
    """BaremetalError naming every problem of the baseline (baseline_problems), before anything is read."""
    problems = baseline_problems(baseline)
    if problems:
        raise BaremetalError('The firmware baseline is not valid; nothing was read: %s' % ' '.join(problems))


# -- a node against the baseline (pure) --------------------------------------------------------------------------

def node_identity(node, components):
    """(vendor, model) of a node as Ironic reports them: the vendor Ironic caches in properties.vendor (from the
    BMC), else the vendor of its bios or bmc firmware component; the model of its bios or bmc component (API 1.114),
    else properties.model. Either may be None."""
    properties = node.get('properties') or {}
    recorded = dict((entry.get('component'), entry) for entry in components or [])
    system = [recorded[name] for name in FIRMWARE_COMPONENTS if name in recorded]
    vendor = properties.get('vendor') or next((entry['vendor'] for entry in system if entry.get('vendor')), None)
    model = next((entry['model'] for entry in system if entry.get('model')), None) or properties.get('model')
    return vendor, model


def matches(match, node, components):
    """Whether a node is of the model a match names: every key given agrees (vendor and model case aside)."""
    vendor, model = node_identity(node, components)
    for key, reported in (('vendor', vendor), ('model', model)):
        if match.get(key) and str(match[key]).lower() != str(reported or '').lower():
            return False
    properties = node.get('properties') or {}
    return all(key in properties and str(properties[key]) == str(value)
               for key, value in (match.get('properties') or {}).items())


def _step(name, version, url):
    return {'component': name, 'version': version, 'url': url}


def component_compliance(entry, recorded, name=None):
    """One component of a model against what the node records ({name: component} as Ironic lists them):
    ({component, baseline_component, target, current, status, behind_by, reason}, [plan steps]).

    name: the component the node records that the entry is judged against (one NIC of a nic:* entry); by default
    the entry's own component. The item and the steps carry that name, the one Ironic's firmware.update takes;
    baseline_component is the entry's."""
    name, target = name or entry['component'], entry['version']
    result = {'component': name, 'baseline_component': entry['component'], 'target': target, 'current': None,
              'status': UNKNOWN, 'behind_by': None, 'reason': None}
    current = (recorded.get(name) or {}).get('current_version')
    if name not in recorded:
        result['reason'] = ('its firmware interface records no NIC component (nic:<id>)' if name == EVERY_NIC
                            else "its firmware interface records no '%s' component" % name)
        return result, []
    result['current'] = current
    order = compare_versions(current, target) if current else None
    if order is None:
        result['reason'] = ("version '%s' cannot be compared with the target '%s'" % (current, target) if current
                            else 'Ironic records no current version')
        return result, []
    if order == 0:
        result['status'] = AT_TARGET
        return result, []
    if order > 0:
        result['status'] = AHEAD
        if entry.get('allow_downgrade'):
            result['behind_by'] = 1
            return result, [_step(name, target, entry['url'])]
        return result, []
    stones = entry.get('stepping_stones') or []
    ahead = []
    for stone in stones:
        stone_order = compare_versions(stone['version'], current)
        if stone_order is None:
            result['reason'] = ("version '%s' cannot be compared with the stepping stone '%s'"
                                % (current, stone['version']))
            return result, []
        if stone_order > 0:
            ahead.append(_step(name, stone['version'], stone['url']))
    steps = ahead + [_step(name, target, entry['url'])]
    result.update(status=BEHIND, behind_by=len(steps))
    return result, steps


def entry_compliances(entry, recorded, named):
    """[(compliance, steps)] of one entry of a model: one item, or for nic:* one per NIC the node records (sorted by
    name) that the model does not name itself (named: the components the model's entries name). A node that records
    no NIC has one unknown item for nic:*; one whose every NIC the model names has none."""
    nics = sorted(name for name in recorded if is_nic(name))
    if entry['component'] != EVERY_NIC or not nics:
        return [component_compliance(entry, recorded)]
    return [component_compliance(entry, recorded, name) for name in nics if name not in named]


def node_status(components):
    """A node's compliance from its components': behind when any is (it has a plan), else unknown when any is, else
    ahead when any is, else at_target."""
    statuses = set(component['status'] for component in components)
    for status in (BEHIND, UNKNOWN, AHEAD):
        if status in statuses:
            return status
    return AT_TARGET


def node_compliance(baseline, node, components):
    """A node against a valid baseline: {model (its label, or None), status, reason, components, plan}.

    components: the firmware components Ironic records for the node (GET /v1/nodes/{node}/firmware), None when they
    were not read. The plan is the ordered list of {component, version, url} a campaign would run: the model's
    components in their order, each through its stepping stones above the running version, then its target; a nic:*
    entry in its place, NIC after NIC by name (entry_compliances).
    """
    interface = node.get('firmware_interface')
    nothing = not components
    empty = ('its firmware interface (%s) records no components' % interface if interface
             else 'Ironic records no firmware components for it')
    models = [model for model in baseline if matches(model['match'], node, components)]
    result = {'model': None, 'status': UNKNOWN, 'reason': None, 'components': [], 'plan': []}
    if len(models) > 1:
        result['reason'] = 'it matches more than one model: %s' % ', '.join(model_label(model) for model in models)
        return result
    if not models:
        vendor, model = node_identity(node, components)
        result['reason'] = 'no model of the baseline matches it (vendor %s, model %s)%s' % (
            vendor or 'unknown', model or 'unknown', '; %s' % empty if nothing else '')
        return result
    model = models[0]
    result['model'] = model_label(model)
    recorded = dict((entry.get('component'), entry) for entry in components or [])
    named = set(entry['component'] for entry in model['components'])
    for entry in model['components']:
        for compliance, steps in entry_compliances(entry, recorded, named):
            if nothing:
                compliance['reason'] = empty
            result['components'].append(compliance)
            result['plan'].extend(steps)
    result['status'] = node_status(result['components'])
    if nothing:
        result['reason'] = empty
    return result


def compliance_section(baseline, labelled):
    """Per model and component, how many nodes are at target, behind, ahead or unknown, and the nodes no model
    matches and those a campaign would update: {'models': [{model, nodes, components: [{component, target, at_target,
    behind, ahead, unknown, steps}]}], 'unmatched': [names], 'to_update': [names]}.
    labelled: [(node name, node_compliance)].

    A row is an entry of the model and counts nodes. A node's status in the row of nic:* is node_status of its NICs
    (behind when one is); its steps are those of all its NICs. A node none of whose items came from the entry (every
    NIC named by the model itself) is not counted in that row."""
    models = []
    for model in baseline:
        label = model_label(model)
        members = [compliance for _name, compliance in labelled if compliance['model'] == label]
        counts = []
        for entry in model['components']:
            row = dict({'component': entry['component'], 'target': entry['version'], 'steps': 0},
                       **dict((status, 0) for status in STATUSES))
            for compliance in members:
                items = [item for item in compliance['components'] if item['baseline_component'] == entry['component']]
                if items:
                    row[node_status(items)] += 1
                    row['steps'] += sum(item['behind_by'] for item in items if item['status'] == BEHIND)
            counts.append(row)
        models.append({'model': label, 'nodes': len(members), 'components': counts})
    return {'models': models,
            'unmatched': sorted(name for name, compliance in labelled if compliance['model'] is None),
            'to_update': sorted(name for name, compliance in labelled if compliance['plan'])}
