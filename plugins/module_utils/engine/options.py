# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How a node is brought to its declared provision state: the provision options (OPTION_SPEC, the argument spec
baremetal_provision_state and baremetal_node take them with) and Options, one task's or one node's values of them.

Apart from the engine that acts on them (engine/provision.py), so that a task builds its argument spec and its
declarations without loading the scheduler.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.actions import ACTIONS, ERASE_STEPS, REQUEST_FIELDS

# inspection asks for its action by a choice rather than by being set: skip never, always on every run, once
# only for a node on which the action never finished (the node field that says when it last did).
SKIP, ONCE, ALWAYS = 'skip', 'once', 'always'
INSPECTION_CHOICES = (SKIP, ONCE, ALWAYS)
FINISHED_AT = {'inspect': 'inspection_finished_at'}

# Every option of Options, as the argument spec baremetal_provision_state takes it with. An in-place action is
# asked for by its option (ACTIONS), and sends its request fields (REQUEST_FIELDS) from the
# options of the same name.
OPTION_SPEC = dict(
    adopt=dict(type='bool', default=False),
    instance_info=dict(type='dict'),
    config_drive=dict(type='raw'),
    deploy_steps=dict(type='list', elements='dict'),
    clean_steps=dict(type='list', elements='dict'),
    service_steps=dict(type='list', elements='dict'),
    inspection=dict(type='str', default=SKIP, choices=list(INSPECTION_CHOICES)),
    unhold=dict(type='bool', default=False),
    clear_fault=dict(type='bool', default=False),
    rescue_password=dict(type='str', no_log=True),
    rebuild=dict(type='bool', default=False),
    runbook=dict(type='str'),
    erase=dict(type='str', choices=sorted(ERASE_STEPS)),
    retired=dict(type='bool'),
    retired_reason=dict(type='str'),
    allow_destructive=dict(type='bool', default=False),
)

# The option that carries a request field Ironic names otherwise.
FIELD_OPTIONS = {'configdrive': 'config_drive'}

# The request of an action whose fields are not options of the same name: erase sends the clean step it names.
ACTION_REQUESTS = {
    'erase': lambda options: {'clean_steps': [dict(ERASE_STEPS[options.erase])]},
}

# Options that may carry a secret are task-wide only: Ansible hides them there.
TASK_WIDE_OPTIONS = ('config_drive', 'instance_info', 'rescue_password')


def _node_option_type(spec):
    if 'choices' in spec:
        return tuple(spec['choices'])
    return {'bool': bool, 'list': list, 'str': str}[spec['type']]


# Options a nodes: element may set for its own node, and what each must be.
NODE_OPTION_TYPES = dict((name, _node_option_type(spec)) for name, spec in OPTION_SPEC.items()
                         if name not in TASK_WIDE_OPTIONS)


class Options(object):
    """How to get there: the task's options, or one node's own where a nodes: element overrides them."""

    def __init__(self, **options):
        unknown = sorted(set(options) - set(OPTION_SPEC))
        if unknown:
            raise TypeError('Options has no option %s' % ', '.join(unknown))
        for name, spec in OPTION_SPEC.items():
            setattr(self, name, options.get(name, spec.get('default')))

    @classmethod
    def from_params(cls, params):
        """The options of a task, from its module params."""
        return cls(**dict((name, params[name]) for name in OPTION_SPEC))

    def overridden(self, **fields):
        """A copy with some options replaced."""
        return Options(**dict(self.__dict__, **fields))

    def arguments(self, verb, action=None):
        """Extra fields of the provision request of verb, or of the in-place action (an ACTIONS row) a step runs."""
        if action is not None and action.name in ACTION_REQUESTS:
            return ACTION_REQUESTS[action.name](self)
        fields = action.request_fields if action is not None else REQUEST_FIELDS.get(verb, ())
        return dict((field, getattr(self, FIELD_OPTIONS.get(field, field))) for field in fields)

    def actions(self, node, target):
        """The in-place actions (ACTIONS names) asked for this node: (every time, only if harmless).

        An option asks for its action when set (steps, true, always); inspection: once asks for it only for a node
        never inspected, and only where that needs no destructive step. An option several rows answer (runbook)
        asks for the row that goes with the declared state target (all of them when none does: the planner says
        which states they go with).
        """
        required = []
        optional = []
        for action in ACTIONS:
            rows = [row for row in ACTIONS if row.option == action.option]
            if len(rows) > 1 and target not in action.targets and any(target in row.targets for row in rows):
                continue
            value = getattr(self, action.option)
            if value == ONCE:
                if not node.get(FINISHED_AT[action.name]):
                    optional.append(action.name)
            elif value and value != SKIP:
                required.append(action.name)
        return required, optional
