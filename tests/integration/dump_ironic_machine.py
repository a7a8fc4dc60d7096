# -*- coding: utf-8 -*-
"""Print Ironic's own provision state machine as JSON. Runs with the Python of Ironic's virtualenv."""

import json
import warnings
from importlib import metadata

warnings.simplefilter('ignore')

from ironic.api.controllers.v1 import utils as api_utils  # noqa: E402
from ironic.api.controllers.v1 import versions  # noqa: E402
from ironic.common import faults, states  # noqa: E402
from ironic.drivers import base as drivers_base  # noqa: E402

try:
    from ironic.common.state_machine import machine  # noqa: E402  Ironic 35.0 and newer
except ImportError:
    machine = states.machine
print(json.dumps({
    'release': metadata.version('ironic'),
    'transitions': sorted(list(edge) for edge in machine),
    'states': dict((name, {'stable': machine.is_stable(name), 'target': machine._states[name]['target']})
                   for name in machine.states),
    'failure_states': sorted(states.FAILURE_STATES),
    'unstable_states': sorted(states.UNSTABLE_STATES),
    'delete_allowed_states': list(states.DELETE_ALLOWED_STATES),
    'update_allowed_states': sorted(states.UPDATE_ALLOWED_STATES),
    'interfaces': sorted(drivers_base.ALL_INTERFACES),
    'verbs': states.VERBS,
    'verb_min_minor': dict(api_utils.MIN_VERB_VERSIONS, unhold=versions.MINOR_85_UNHOLD_VERB,
                           service=versions.MINOR_87_SERVICE),
    'max_version': versions.max_version_string(),
    'faults': sorted(faults.VALID_FAULTS),
    'inventory_minor': versions.MINOR_81_NODE_INVENTORY,
    'service_minor': versions.MINOR_87_SERVICE,
}))
