# -*- coding: utf-8 -*-
# Copyright: baremetal.lifecycle contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The ``driver_info`` schema of each hardware type (validated by node/driver_info.py).

The key names, types and enums come from the Ironic driver modules
(``ipmitool.py``, ``redfish/utils.py``, ``redfish/boot.py``, ``pxe_base.py``,
``agent.py``, ``agent_base.py``, ``ansible/deploy.py``, ``image_utils.py``,
``common/neutron.py``; ``ilo/common.py`` and ``ilo/boot.py`` of the last Ironic
releases that still shipped the iLO driver). Deprecated aliases that Ironic
only reads with a warning (``ilo_deploy_iso``, ``redfish_deploy_iso``,
``config_via_floppy``, ``ca_file``) and the insecure ``pxe_template`` override
are left out on purpose, so validation steers users to the current names.
"""

from __future__ import absolute_import, division, print_function
__metaclass__ = type


def _str(description):
    return {'type': 'string', 'description': description}


def _enum(description, values):
    return {'enum': list(values), 'description': description}


def _int(description):
    # Ironic int()s these values, and Ansible templating often produces
    # "623": accept an integer or a string of digits, as Ironic does.
    return {'type': ['integer', 'string'], 'pattern': r'^[0-9]+$',
            'description': description}


def _bool(description):
    # Ironic parses these with strutils.bool_from_string, so "yes" or "False"
    # from templating work as well as YAML booleans.
    return {'type': ['boolean', 'string'],
            'pattern': r'(?i)^(1|t|true|on|y|yes|0|f|false|off|n|no)$',
            'description': description}


def _flag(description):
    # Ironic only tests these for truth, so the string "false" would switch
    # them on: only a real boolean is accepted.
    return {'type': 'boolean', 'description': description}


def _int_or_str(description):
    # Bridging channels and addresses go to ipmitool verbatim ("0x20" or 32).
    return {'type': ['integer', 'string'], 'description': description}


def _bool_or_path(description):
    return {'type': ['boolean', 'string'], 'description': description}


# Keys read by the interfaces every hardware type supports: agent and ansible
# deploy, (i)PXE and HTTP boot, neutron networking, and the conductor itself.
_COMMON = {
    'deploy_kernel': _str('URL or Glance image of the deploy ramdisk kernel.'),
    'deploy_ramdisk': _str('URL or Glance image of the deploy ramdisk.'),
    'rescue_kernel': _str('URL or Glance image of the rescue kernel.'),
    'rescue_ramdisk': _str('URL or Glance image of the rescue ramdisk.'),
    'kernel_append_params': _str(
        'Extra kernel parameters; %default% inserts the configured ones.'),
    'force_persistent_boot_device': _enum(
        'Persistency of boot device changes.', ('Always', 'Default', 'Never')),
    'image_download_source': _enum(
        'Where the agent downloads the instance image from.',
        ('swift', 'http', 'local')),
    'image_http_proxy': _str('Proxy for HTTP image downloads.'),
    'image_https_proxy': _str('Proxy for HTTPS image downloads.'),
    'image_no_proxy': _str('Comma-separated hosts not to proxy.'),
    'deploy_forces_oob_reboot': _bool(
        'Reboot out-of-band after deployment.'),
    'agent_verify_ca': _bool_or_path(
        'Verify the agent TLS certificate: boolean or CA bundle path.'),
    'ansible_username': _str('Ramdisk user for the ansible deploy interface.'),
    # Only a path, but named like a key: masked like one (_secrets).
    'ansible_key_file': _str(
        'Path to the SSH private key for ansible deploy.'),
    'ansible_playbooks_path': _str('Directory holding the ansible playbooks.'),
    'ansible_deploy_playbook': _str('Playbook used to deploy.'),
    'ansible_shutdown_playbook': _str('Playbook used to shut down.'),
    'ansible_clean_playbook': _str('Playbook used to clean.'),
    'ansible_clean_steps_config': _str('File with the ansible clean steps.'),
    'ansible_python_interpreter': _str('Python interpreter in the ramdisk.'),
    'fast_track': _bool('Keep the agent running between operations.'),
    'cleaning_network': _str('Network (name or UUID) used for cleaning.'),
    'provisioning_network': _str('Network (name or UUID) used to deploy.'),
    'rescuing_network': _str('Network (name or UUID) used for rescue.'),
    'inspection_network': _str('Network (name or UUID) used for inspection.'),
    'servicing_network': _str('Network (name or UUID) used for servicing.'),
    'fail_on_binding_failure': _flag('Fail when a port binding fails.'),
    'cleaning_runbook': _str('Runbook (name or UUID) for automated cleaning.'),
    'has_dedicated_power_supply': _flag(
        'A child node powers on without its parent node.'),
}

# ipmitool power, management, vendor and socat console interfaces.
_IPMI = {
    'ipmi_address': _str('IP address or hostname of the BMC.'),
    'ipmi_username': _str('BMC user; the NULL user when unset.'),
    'ipmi_password': _str('BMC password.'),
    'ipmi_hex_kg_key': _str('IPMIv2 Kg key, hexadecimal.'),
    'ipmi_port': _int('Remote IPMI RMCP port.'),
    'ipmi_priv_level': _enum(
        'Privilege level.', ('ADMINISTRATOR', 'CALLBACK', 'OPERATOR', 'USER')),
    'ipmi_bridging': _enum('Bridging type.', ('no', 'single', 'dual')),
    'ipmi_transit_channel': _int_or_str('Transit channel (dual bridging).'),
    'ipmi_transit_address': _int_or_str('Transit address (dual bridging).'),
    'ipmi_target_channel': _int_or_str('Destination channel (bridging).'),
    'ipmi_target_address': _int_or_str('Destination address (bridging).'),
    'ipmi_local_address': _int_or_str('Local IPMB address (bridging).'),
    # YAML reads an unquoted 2.0 as a float; Ironic str()s it, so allow both.
    'ipmi_protocol_version': _enum(
        'IPMI protocol version.', ('2.0', '1.5', 2.0, 1.5)),
    'ipmi_force_boot_device': _bool(
        'Set the boot device on every power on.'),
    'ipmi_disable_boot_timeout': _bool(
        'Send the raw command disabling the 60 s boot timeout.'),
    'ipmi_cipher_suite': _int('IPMI cipher suite, usually 3 or 17.'),
    'ipmi_terminal_port': _int('Local port of the serial console.'),
}

# Redfish power, management, BIOS, RAID, firmware and graphical console.
_REDFISH = {
    'redfish_address': _str(
        'URL of the Redfish service; https is assumed without a scheme.'),
    'redfish_system_id': _str(
        'Path of the ComputerSystem, e.g. /redfish/v1/Systems/1; needed only '
        'when the BMC manages several systems.'),
    'redfish_username': _str('Redfish user.'),
    'redfish_password': _str('Redfish password.'),
    'redfish_verify_ca': _bool_or_path(
        'Verify the BMC TLS certificate: boolean or CA bundle path.'),
    'redfish_auth_type': _enum(
        'Redfish authentication method.', ('basic', 'session', 'auto')),
    # Strings only: Ironic compares strings, so an unquoted YAML 1.2 (a
    # float) would fail there.
    'redfish_tls_minimum_version': _enum(
        'Minimum TLS version towards the BMC.', ('1.1', '1.2', '1.3')),
    'redfish_tls_ciphers': _str('OpenSSL cipher list towards the BMC.'),
    'firmware_update_unresponsive_bmc_wait': _int(
        'Seconds to wait for the BMC during firmware updates.'),
}

# Boot interfaces that build or attach ISO images (virtual media, HTTPS boot).
_ISO_BOOT = {
    'deploy_iso': _str('URL or Glance image of the deploy ISO.'),
    'rescue_iso': _str('URL or Glance image of the rescue ISO.'),
    'bootloader': _str(
        'URL or Glance image of the EFI system partition image.'),
    'external_http_url': _str(
        'Base URL to serve images from outside the provisioning network.'),
}

# Redfish virtual media only.
_REDFISH_VMEDIA = {
    'config_via_removable': _flag(
        'Pass ramdisk configuration on a virtual USB/floppy device.'),
    # Ironic upper-cases the value before comparing.
    'vmedia_transport_protocol': _enum(
        'Virtual media transport protocol.',
        ('HTTP', 'HTTPS', 'NFS', 'CIFS', 'http', 'https', 'nfs', 'cifs')),
}

# iLO power, management, inspect, console and boot interfaces.
_ILO = {
    'ilo_address': _str('IP address or hostname of the iLO.'),
    'ilo_username': _str('iLO user with administrator privileges.'),
    'ilo_password': _str('Password of ilo_username.'),
    'client_port': _int('Port for iLO operations.'),
    'client_timeout': _int('Timeout in seconds for iLO operations.'),
    'ilo_verify_ca': _bool_or_path(
        'Verify the iLO TLS certificate: boolean or CA bundle path.'),
    'ilo_change_password': _str(
        'New iLO password for the reset_ilo_credential clean step.'),
    'ilo_add_certificates': _bool('Add the TLS certificates to the iLO.'),
    'console_port': _int('Local port of the serial console.'),
    'snmp_auth_user': _str('SNMPv3 user for inspection.'),
    'snmp_auth_prot_password': _str('SNMPv3 authentication passphrase.'),
    'snmp_auth_priv_password': _str('SNMPv3 privacy passphrase.'),
    # Ironic upper-cases the value before comparing.
    'snmp_auth_protocol': _enum(
        'SNMPv3 authentication protocol.', ('MD5', 'SHA', 'md5', 'sha')),
    'snmp_auth_priv_protocol': _enum(
        'SNMPv3 privacy protocol.', ('AES', 'DES', 'aes', 'des')),
}


def _schema(groups, required=()):
    properties = {}
    for group in groups:
        properties.update(group)
    return {
        '$schema': 'http://json-schema.org/draft-07/schema#',
        'type': 'object',
        'properties': properties,
        'required': list(required),
        'additionalProperties': False,
    }


# redfish and idrac also offer the ipmitool-socat console, hence the optional
# ipmi_* keys. Fake and manual-management interfaces read no driver_info of
# their own, only the common keys of the generic interfaces.
SCHEMAS = {
    'ipmi': _schema((_COMMON, _IPMI), ['ipmi_address']),
    'redfish': _schema(
        (_COMMON, _REDFISH, _ISO_BOOT, _REDFISH_VMEDIA, _IPMI),
        ['redfish_address']),
    'idrac': _schema(
        (_COMMON, _REDFISH, _ISO_BOOT, _REDFISH_VMEDIA, _IPMI),
        ['redfish_address']),
    'ilo': _schema(
        (_COMMON, _ISO_BOOT, _ILO),
        ['ilo_address', 'ilo_username', 'ilo_password']),
    'fake-hardware': _schema((_COMMON,)),
    'manual-management': _schema((_COMMON,)),
}

SUPPORTED_HARDWARE_TYPES = tuple(SCHEMAS)
