# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The record fields of a node, declared once: one row per field (ROWS) gives the option a task declares it
with (its Ansible type and its docs, for the task and for an element of nodes), how it is compared and written, the
API feature it needs and what the node's view shows of it.

baremetal_node's argument spec (RECORD_SPEC), node/record.py's field lists and the record-field parts of
baremetal_node's DOCUMENTATION (written by docs/generate_record_options.py, checked by its test) derive from the
rows. A new record field is a row here (and a row of ironic/capabilities.py's FEATURE_MIN_VERSION when it needs a
newer API) and a changelog fragment. In a description, ``{api:feature}`` stands for the API version of that row of
FEATURE_MIN_VERSION, and ``{length}`` for the lengths the option's length allows.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.media_types import DEVICE_TYPES, DOWNLOAD_SOURCES

# How a field is compared with the node and written (compare).
VALUE = 'value'  # compared whole, replaced in the node's JSON patch (or given in its POST) when it differs
KEYS = 'keys'  # a dictionary compared key by key: the keys given are set, those given as null removed, others kept
DOCUMENT = 'document'  # a JSON document compared whole (node/network_data.py), patched in the node's record
INTERFACES = 'interfaces'  # each suboption is the node field <name>_interface, compared as a VALUE
OWN_REQUESTS = 'own requests'  # made exactly the list given, by requests of its own (ports, traits, wiring)
ON_CREATION = 'on creation'  # given in the POST that creates the node, never compared

# What a view of a row says when the row has no sample (RecordField.sample).
NO_SAMPLE = object()


class Option(object):
    """One option or suboption: its argument spec and its docs. description is the task's (a list of paragraphs,
    or one string), element the short one of an element of nodes (None: the same); version_added the release that
    brought it; suboptions a tuple of Options; length the (shortest, longest) string Ironic takes, checked before
    anything is sent (record_checks.check_declaration), and said where a description writes {length}."""

    def __init__(self, name, type, description, element=None, elements=None, choices=None, required=False,
                 default=None, suboptions=(), version_added=None, length=None):
        self.name = name
        self.type = type
        self.description = description
        self.element = description if element is None else element
        self.elements = elements
        self.choices = choices
        self.required = required
        self.default = default
        self.suboptions = suboptions
        self.version_added = version_added
        self.length = length

    def spec(self):
        """The option's entry of an Ansible argument spec."""
        spec = dict(type=self.type)
        for key, value in (('elements', self.elements), ('default', self.default)):
            if value is not None:
                spec[key] = value
        if self.required:
            spec['required'] = True
        if self.choices is not None:
            spec['choices'] = list(self.choices)
        if self.suboptions:
            spec['options'] = dict((option.name, option.spec()) for option in self.suboptions)
        return spec


class RecordField(Option):
    """A row: an Option that declares a field of the node's record. compare says how it is compared and written
    (VALUE...); feature names its row of FEATURE_MIN_VERSION (None: every supported Ironic has it); view whether
    node_view shows it, and sample its value in RETURN's sample of a node."""

    def __init__(self, name, type, description, compare, feature=None, view=False, sample=NO_SAMPLE, **option):
        super(RecordField, self).__init__(name, type, description, **option)
        self.compare = compare
        self.feature = feature
        self.view = view
        self.sample = sample


def _interface(name, label, examples=''):
    return Option(name, 'str', 'The %s interface%s.' % (label, examples), element='The %s interface.' % label)


REASON_SECRET = ("A reason that holds a secret (the value of a key named like one, such as C(password=...), or a URL's "
                 "password) fails the task before any write. The task masks it in its output, but Ironic stores the "
                 "text as typed and shows it to anyone who can read the node.")

ROWS = (
    RecordField('uuid', 'str', ['The UUID to give the node when it is created. Ignored for an existing node.'],
                ON_CREATION, element='The UUID to give the node when it is created.'),
    RecordField('driver', 'str', [
        'The hardware type, for example V(redfish), V(ipmi), V(idrac), V(ilo), V(fake-hardware) or '
        'V(manual-management). Required to create a node.',
        'It must be enabled in Ironic (C(enabled_hardware_types)); the module checks before writing.'],
        VALUE, view=True, sample='redfish', element='The hardware type.'),
    RecordField('driver_info', 'dict', [
        "Keys of the node's C(driver_info), which tell Ironic how to reach its BMC and boot it.",
        'A key given as null is removed. Keys not given are left alone.',
        'Secret keys (passwords, Kg keys, tokens) are never compared with the node; see O(update_secrets).'],
        KEYS, view=True, element="Keys of the node's C(driver_info), as O(driver_info).",
        sample={'redfish_address': 'http://127.0.0.1:8000', 'redfish_username': 'admin',
                'redfish_password': '********'}),
    RecordField('properties', 'dict', [
        "Keys of the node's C(properties), for example C(cpu_arch), C(memory_mb) or C(root_device).",
        'A key given as null is removed. Keys not given, such as those inspection fills in, are left alone.',
        'C(cpus), C(memory_mb) and C(local_gb) are integers, as Ironic documents them. Given as a string of decimal '
        'digits (V(properties=cpus=8) in C(name=value) form, or a templated value, makes V("8")), the value is sent '
        'as the integer with a warning that names the property; any other value that is not a whole number '
        '(V(eight), V(8GB), V(8.5), a list) is refused before anything is sent.'],
        KEYS, view=True, sample={'cpu_arch': 'x86_64'},
        element="Keys of the node's C(properties); C(cpus), C(memory_mb) and C(local_gb) as O(properties) takes them."),
    RecordField('resource_class', 'str', ['The resource class the Compute service schedules the node as.'],
                VALUE, feature='resource_class', view=True, sample='baremetal.large', element='The resource class.'),
    RecordField('interfaces', 'dict', [
        "The node's hardware interfaces. An interface not given keeps its current value, on creation the default of "
        'the hardware type.'],
        INTERFACES, feature='interfaces', element="The node's hardware interfaces, as O(interfaces).", suboptions=(
            _interface('bios', 'BIOS'),
            _interface('boot', 'boot', ', for example V(ipxe), V(pxe) or V(redfish-virtual-media)'),
            _interface('console', 'console'), _interface('deploy', 'deploy', ', for example V(direct) or V(ramdisk)'),
            _interface('firmware', 'firmware'),
            _interface('inspect', 'inspect', ', for example V(agent) or V(redfish)'),
            _interface('management', 'management'),
            _interface('network', 'network', ', for example V(flat), V(neutron) or V(noop)'),
            _interface('power', 'power'), _interface('raid', 'RAID'), _interface('rescue', 'rescue'),
            _interface('storage', 'storage'), _interface('vendor', 'vendor'))),
    RecordField('ports', 'list', [
        "The node's ports (network interfaces), matched by MAC address. Ports of the node not listed are deleted; an "
        'empty list deletes them all. When not given, ports are not touched.',
        'A MAC address already used by a port of another node fails the task before anything changes.'],
        OWN_REQUESTS, elements='dict', element="The node's ports, as O(ports).", suboptions=(
            Option('address', 'str', ['The MAC address, six hexadecimal octets separated by colons. Case does not '
                                      'matter.'], element='The MAC address.', required=True),
            Option('pxe_enabled', 'bool', ["Whether the node boots from the network through this port. Ironic's "
                                           'default on creation is V(true).'],
                   element='Whether the node boots from the network through this port.'),
            Option('physical_network', 'str', ['The physical network the port is connected to.'],
                   element='The physical network the port is connected to.'),
            Option('local_link_connection', 'dict', ['The switch port it is cabled to, with C(switch_id), C(port_id) '
                                                     'and optionally C(switch_info).'],
                   element='The switch port it is cabled to.'),
            Option('port_group', 'str', [
                'The name of the port group (bond) the port belongs to, declared in O(port_groups) or, when '
                'O(port_groups) is not given, one the node has. An empty string takes the port out of its group. Not '
                'given, the port stays in the group it is in, unless that group is deleted.',
                "Ironic API {api:port_group} (the port's C(portgroup_uuid)). Ironic changes a port's group only in "
                'V(enroll), V(manageable), V(inspecting) or in maintenance.'],
                element='The port group the port belongs to, as O(ports[].port_group).', version_added='0.4.0'))),
    RecordField('port_groups', 'list', [
        "The node's port groups (bonds), matched by name, made exactly this list; a port group of the node not listed "
        'is deleted, once its ports have left it (an empty list deletes them all). When not given, port groups are '
        'not touched. Ports join a group with O(ports[].port_group).',
        'The order Ironic needs is kept. The ports are written first, then the port groups are created and updated, '
        'then ports leave and join groups, and the groups no longer declared are deleted last.',
        'Port groups need Ironic API {api:port_groups}, their O(port_groups[].mode) and O(port_groups[].properties) '
        '{api:port group mode}, O(port_groups[].physical_network) {api:port group physical_network} and '
        'O(port_groups[].category) {api:port group category}. On an older API, declaring one fails before anything '
        'is written, naming the version.',
        "A name another node's port group has (names are unique across Ironic), or one given twice, fails the task "
        'before anything is written.',
        'Deleting the node (O(state=absent)) deletes its port groups with it.'],
        OWN_REQUESTS, feature='port_groups', elements='dict', version_added='0.4.0',
        element="The node's port groups, as O(port_groups).", suboptions=(
            Option('name', 'str', ['The name of the port group; letters, digits, C(.), C(_), C(~) and C(-), not a '
                                   'UUID. It identifies the group; the module never renames one.'],
                   element='The name of the port group.', required=True),
            Option('address', 'str', ['The MAC address of the bond, six hexadecimal octets separated by colons. Case '
                                      'does not matter.'], element='The MAC address of the bond.'),
            Option('mode', 'str', ['The bonding mode, for example V(active-backup) or V(802.3ad). Not given on '
                                   "creation, Ironic's C([DEFAULT]default_portgroup_mode) applies."],
                   element='The bonding mode.'),
            Option('properties', 'dict', ["The bond's properties, for example C(miimon) or C(xmit_hash_policy). "
                                          'Replaced whole when given.'], element="The bond's properties."),
            Option('standalone_ports_supported', 'bool', ["Whether the group's ports may also be used alone (Ironic's "
                                                          'default is V(true)).'],
                   element='Whether its ports may also be used alone.'),
            Option('physical_network', 'str', ["The physical network the group's ports are connected to (Ironic API "
                                               '{api:port group physical_network}).'],
                   element='The physical network of its ports.'),
            Option('category', 'str', ['A free-form category of the port group (Ironic API {api:port group '
                                       'category}), at most 80 characters.'], element='A free-form category.'))),
    RecordField('network_data', 'dict', [
        "The node's static network configuration for its ramdisk, in the OpenStack C(network_data.json) format with "
        'C(links), C(networks) and C(services) (Ironic API {api:network_data}; on an older API it fails before '
        'anything is written).',
        "Declared whole, the value given replaces the node's; an empty dictionary clears it. Not given, it is left "
        'alone.',
        'Its shape (the three lists) is checked before anything is sent; Ironic checks the rest against its schema '
        'when it is written.'],
        DOCUMENT, feature='network_data', version_added='0.4.0',
        element="The node's network_data, as O(network_data)."),
    RecordField('virtual_media', 'list', [
        "Images inserted in the virtual devices of the node's BMC, one entry per device. A device not listed is left "
        'alone (Ironic inserts images of its own to boot a node by virtual media).',
        'Needs a management interface that has virtual media (V(redfish) and its relatives) and Ironic API '
        '{api:virtual_media}. Ironic attaches and detaches from API 1.89, but shows what is attached only from '
        '{api:virtual_media}, and the module compares that with the declaration before it writes; on an older API '
        'the task fails before anything is written.',
        'Ironic attaches and detaches in the background; the module reads what the BMC shows until the image is '
        "inserted (or ejected), at most 10 minutes per device, and fails with the node's C(last_error) when Ironic "
        'reports a failure.',
        "A URL's password (C(http://user:password@host/image.iso)) and the secret parameters of its query (a signed "
        "URL's C(temp_url_sig) or C(X-Amz-Signature)) are masked in results, diffs and messages.",
        "Each attach records its O(virtual_media[].image_url), secrets masked, in the node's C(extra) under "
        "C(baremetal_lifecycle_virtual_media) (the key goes when no device has an image). Ironic's copy of an image "
        '(O(virtual_media[].download_source=local)) does not say what it is a copy of, so it counts as the declared '
        'image only when that record names it, otherwise the declared image is inserted in its place. A URL that '
        'differs only by its password or signature is the same image.'],
        OWN_REQUESTS, feature='virtual_media', elements='dict', version_added='0.4.0',
        element="The node's virtual media, as O(virtual_media).", suboptions=(
            Option('device_type', 'str', ['The virtual device, V(cdrom), V(disk) (a USB stick) or V(floppy). A BMC '
                                          'without such a device fails the task before anything is written.'],
                   element='The virtual device.', required=True, choices=DEVICE_TYPES),
            Option('image_url', 'str', ['The image to insert, an C(http), C(https), C(nfs), C(cifs) or C(smb) URL. '
                                        'Required unless O(virtual_media[].state=absent).'],
                   element='The image to insert.'),
            Option('download_source', 'str', [
                'V(http) gives the URL to the BMC, which downloads the image itself; the image the BMC shows is '
                'compared with O(virtual_media[].image_url).',
                'V(local) has the conductor download the image and serve its copy to the BMC, from its '
                "C([deploy]http_url) (C(nfs), C(cifs) and C(smb) URLs cannot be); the BMC then shows Ironic's copy.",
                'Ironic 39.0 never passes the source on to its conductor, which then always copies the image as with '
                'V(local), whatever is given here.'],
                element='Who downloads the image, as O(virtual_media[].download_source).', default='http',
                choices=DOWNLOAD_SOURCES),
            Option('state', 'str', ['V(present) inserts the image (replacing another one), V(absent) ejects the '
                                    'device.'], element='V(present) inserts the image, V(absent) ejects the device.',
                   default='present', choices=('present', 'absent')))),
    RecordField('traits', 'list', ["The node's traits, standard ones or custom ones starting with C(CUSTOM_). The "
                                   'node gets exactly this list.'],
                OWN_REQUESTS, feature='traits', view=True, sample=['CUSTOM_RACK1'], elements='str',
                element="The node's traits."),
    RecordField('extra', 'dict', ["Keys of the node's C(extra), free-form metadata. A key given as null is removed; "
                                  'keys not given are left alone.'],
                KEYS, view=True, sample={}, element="Keys of the node's C(extra)."),
    RecordField('instance_info', 'dict', ["Keys of the node's C(instance_info), for example C(image_source). A key "
                                          'given as null is removed; keys not given are left alone. Secret keys are '
                                          'handled as in O(driver_info).'],
                KEYS, element="Keys of the node's C(instance_info)."),
    RecordField('instance_name', 'str', [
        'The name of the workload (the instance) the node runs, as the Compute service or the tool that deploys it '
        'names it (Ironic API {api:instance_name}; on an older API, declaring it fails before anything is written, '
        'naming the version).',
        'Ironic clears it when the node is undeployed. While it is not set, Ironic takes C(display_name) of '
        "O(instance_info) when the node's C(instance_info) is written.",
        'It is {length} long; an empty string is refused before anything is written.'],
        VALUE, feature='instance_name', view=True, sample=None, version_added='0.5.0', length=(1, 255),
        element='The name of the workload the node runs, as O(instance_name).'),
    RecordField('conductor_group', 'str', [
        'The conductor group that manages the node. Ironic stores it in lower case, and this module sends it so, '
        "because Ironic looks up the conductors of a new node's group as the request spells it.",
        'Ironic refuses a group that no conductor serves.'],
        VALUE, feature='conductor_group', view=True, sample='', element='The conductor group.'),
    RecordField('shard', 'str', ['The shard the node belongs to, which splits a big fleet between services (Ironic '
                                 'API {api:shard}).'],
                VALUE, feature='shard', view=True, sample=None, version_added='0.2.0', element='The shard.'),
    RecordField('owner', 'str', ['The project that owns the node.'], VALUE, feature='owner', view=True, sample=None,
                element='The project that owns the node.'),
    RecordField('lessee', 'str', ['The project the node is leased to.'], VALUE, feature='lessee', view=True,
                sample=None, element='The project the node is leased to.'),
    RecordField('description', 'str', ['A free-form description of the node.'], VALUE, feature='description',
                view=True, sample=None, element='A free-form description.'),
    RecordField('automated_clean', 'bool', ['Whether Ironic runs automated cleaning on the node. When not given, the '
                                            "conductor's setting applies."],
                VALUE, feature='automated_clean', view=True, sample=None,
                element='Whether Ironic runs automated cleaning on the node.'),
    RecordField('protected', 'bool', [
        'Whether the node is protected. Ironic refuses to undeploy, rebuild or delete a protected node.',
        'Ironic protects only V(active) or V(rescue) nodes; declaring V(true) on another node fails before anything '
        'is sent. V(false) also clears O(protected_reason).'],
        VALUE, feature='protected', view=True, sample=False, version_added='0.2.0',
        element='Whether the node is protected, as O(protected).'),
    RecordField('protected_reason', 'str', ['Why the node is protected. Only kept while the node is protected.',
                                            REASON_SECRET],
                VALUE, feature='protected_reason', view=True, sample=None, version_added='0.2.0',
                element='Why the node is protected.'),
    RecordField('retired', 'bool', [
        'Whether the node is retired. Ironic does not make a retired node available again.',
        'Ironic does not retire an V(available) node; V(false) also clears O(retired_reason).'],
        VALUE, feature='retired', view=True, sample=False, version_added='0.2.0',
        element='Whether the node is retired, as O(retired).'),
    RecordField('retired_reason', 'str', ['Why the node is retired. Only kept while the node is retired.',
                                          REASON_SECRET],
                VALUE, feature='retired_reason', view=True, sample=None, version_added='0.2.0',
                element='Why the node is retired.'),
    RecordField('disable_power_off', 'bool', [
        'Whether the node is hardware that must never be powered off (Ironic API {api:disable_power_off}; on an older '
        'API, declaring it fails before anything is sent, naming the version).',
        'Ironic then reboots the node where it would power it off, and refuses to power it off; '
        'M(baremetal.lifecycle.baremetal_power) refuses V(powered_off) and V(soft_powered_off) before sending '
        'anything.'],
        VALUE, feature='disable_power_off', version_added='0.2.0',
        element='Whether the node must never be powered off, as O(disable_power_off).'),
)

FIELDS = dict((field.name, field) for field in ROWS)

# baremetal_node's options that declare one node's record: the module's own, or those of each element of nodes.
RECORD_SPEC = dict((field.name, field.spec()) for field in ROWS)


def lengths(length):
    """The lengths a string may have, (shortest, longest), in words: '1 to 255 characters'."""
    return '%d to %d characters' % length


def named(compare):
    """The names of the fields compared and written as compare says, in the table's order."""
    return tuple(field.name for field in ROWS if field.compare == compare)


INTERFACE_NAMES = tuple(option.name for option in FIELDS['interfaces'].suboptions)

# The fields the node's view shows (node/record.py node_view), in the table's order.
VIEW_FIELDS = tuple(field.name for field in ROWS if field.view)

# The lengths Ironic takes of each field that has a limit: (shortest, longest).
FIELD_LENGTHS = dict((field.name, field.length) for field in ROWS if field.length)

# The API feature (a row of FEATURE_MIN_VERSION) each field that needs one needs.
FIELD_FEATURES = dict((field.name, field.feature) for field in ROWS if field.feature)
