#!/usr/bin/python
# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
module: baremetal_node
short_description: Enroll, update and delete bare metal nodes, with their ports and traits
version_added: 0.1.0
description:
  - Declares an Ironic node record, that is its driver and C(driver_info), properties, interfaces, ports,
    traits and the other fields below. The node is found by O(name); it is created when missing and updated
    when it differs.
  - Only what the task names is managed. A field left out is not touched. In the dictionary fields
    (O(driver_info), O(properties), O(extra), O(instance_info)) the keys given are set, a key given as
    null is removed, and the keys not mentioned are left alone, so what inspection fills in is kept.
    O(ports), O(port_groups) and O(traits), when given, are made exactly the list given.
  - A new node is left in the V(enroll) provision state, unless the task declares O(provision_state).
  - Besides its record, one task may declare the node whole, its O(provision_state), O(maintenance) and O(power),
    brought about by the engines of M(baremetal.lifecycle.baremetal_provision_state),
    M(baremetal.lifecycle.baremetal_maintenance) and M(baremetal.lifecycle.baremetal_power), in the order Ironic
    needs. First the record is created or updated. Then maintenance is cleared where O(maintenance=false), or where
    O(maintenance=true) but the node must move, as Ironic does not move a node in maintenance. Then the node moves
    to O(provision_state), then its power is set, then maintenance is set where O(maintenance=true), after the move.
    Each stage runs for every node of the task before the next one.
  - A node that fails at a stage goes no further and has its error (C(msg), or C(error) of its entry in RV(nodes));
    maintenance cleared for its move is set again. The specialised modules stay for one concern per task.
  - C(driver_info) is checked against a schema of its hardware type before anything is sent. Unknown or
    misspelled keys (with the closest known key), missing required keys and wrong types fail the task.
  - Ironic never shows secret values (it answers C(******)), so they are never compared; see O(update_secrets).
    Secret values do not appear in results, diffs or logs.
  - Everything that can be checked (driver, C(driver_info), MAC addresses, addresses used by other nodes)
    is checked before the first write, so a task that fails on bad input leaves Ironic unchanged.
  - With O(nodes), one task declares many nodes. The module reads them and their ports in proportion to their
    number, not to the size of Ironic, compares in memory, and writes only to the nodes that differ, at most
    O(concurrency) at once. Every element is checked before the first write, and a task with an invalid
    element fails listing every invalid one. A node Ironic refuses has its error in RV(nodes); the others go
    on, and the task fails afterwards.
  - With O(select), the record fields the task gives are declared for every node that matches, found by its
    name; O(state=absent) with O(select) deletes every node that matches.
author:
  - baremetal.lifecycle maintainers (@baremetal-lifecycle)
extends_documentation_fragment:
  - baremetal.lifecycle.connection
  - baremetal.lifecycle.attributes
  - baremetal.lifecycle.node_selection.select
  - baremetal.lifecycle.waves
attributes:
  check_mode:
    support: full
    description:
      - Reads Ironic, validates, and reports what would change without writing, with the plan of the provision move
        made from the node as read (out of maintenance where the task would clear it).
      - A node that would be created does not exist yet, so its O(provision_state), O(maintenance) and O(power) are
        not planned; RV(not_planned) says so.
  diff_mode:
    support: full
    description:
      - Shows the fields, keys, traits, ports, port groups (with their ports), network data and virtual media that
        change, before and after, with secrets masked, and in the same diff per node C(provision_state),
        C(maintenance), C(maintenance_reason) and C(power_state) where declared.
options:
  name:
    description:
      - The name of the node. It identifies the node; the module never renames one.
      - Ironic refuses names that look like UUIDs, so such a name is refused rather than taken as the UUID of
        another node.
      - Exactly one of O(name) and O(nodes) is required.
      - O(node) is the same option, the word the other modules of this collection use.
    type: str
    aliases: [node]
  nodes:
    version_added: 0.2.0
    description:
      - Many nodes declared in one task. Each element takes the options that declare one node, O(name)
        (required), O(uuid), O(driver), O(driver_info), O(validate_driver_info), O(properties),
        O(resource_class), O(interfaces), O(ports), O(port_groups), O(network_data), O(virtual_media), O(traits),
        O(extra), O(instance_info),
        O(conductor_group), O(shard), O(owner), O(lessee), O(description), O(automated_clean), O(protected),
        O(protected_reason), O(retired), O(retired_reason), O(disable_power_off), and O(state).
      - It may also declare its node's O(provision_state), O(maintenance), O(maintenance_reason) and O(power), and
        how the provision state is reached, O(adopt), O(allow_destructive), O(deploy_steps), O(inspection) and O(unhold).
      - An element without O(state), O(validate_driver_info), or one of those, takes the task's. An element with
        O(state=absent) takes none of the task's O(provision_state), O(maintenance), O(maintenance_reason) and O(power).
      - Cannot be combined with the options that declare one node. An empty list changes nothing and says so in C(msg).
      - To give many existing nodes the same record fields, use O(select) with those fields instead.
    type: list
    elements: dict
    suboptions:
      name:
        description: The name of the node.
        type: str
        required: true
      uuid:
        description: The UUID to give the node when it is created.
        type: str
      driver:
        description: The hardware type.
        type: str
      driver_info:
        description: Keys of the node's C(driver_info), as O(driver_info).
        type: dict
      validate_driver_info:
        description: As O(validate_driver_info); the task's value when not given.
        type: bool
      properties:
        description: Keys of the node's C(properties); C(cpus), C(memory_mb) and C(local_gb) as O(properties) takes
          them.
        type: dict
      resource_class:
        description: The resource class.
        type: str
      interfaces:
        description: The node's hardware interfaces, as O(interfaces).
        type: dict
        suboptions:
          bios:
            description: The BIOS interface.
            type: str
          boot:
            description: The boot interface.
            type: str
          console:
            description: The console interface.
            type: str
          deploy:
            description: The deploy interface.
            type: str
          firmware:
            description: The firmware interface.
            type: str
          inspect:
            description: The inspect interface.
            type: str
          management:
            description: The management interface.
            type: str
          network:
            description: The network interface.
            type: str
          power:
            description: The power interface.
            type: str
          raid:
            description: The RAID interface.
            type: str
          rescue:
            description: The rescue interface.
            type: str
          storage:
            description: The storage interface.
            type: str
          vendor:
            description: The vendor interface.
            type: str
      ports:
        description: The node's ports, as O(ports).
        type: list
        elements: dict
        suboptions:
          address:
            description: The MAC address.
            type: str
            required: true
          pxe_enabled:
            description: Whether the node boots from the network through this port.
            type: bool
          physical_network:
            description: The physical network the port is connected to.
            type: str
          local_link_connection:
            description: The switch port it is cabled to.
            type: dict
          port_group:
            version_added: 0.4.0
            description: The port group the port belongs to, as O(ports[].port_group).
            type: str
      port_groups:
        version_added: 0.4.0
        description: The node's port groups, as O(port_groups).
        type: list
        elements: dict
        suboptions:
          name:
            description: The name of the port group.
            type: str
            required: true
          address:
            description: The MAC address of the bond.
            type: str
          mode:
            description: The bonding mode.
            type: str
          properties:
            description: The bond's properties.
            type: dict
          standalone_ports_supported:
            description: Whether its ports may also be used alone.
            type: bool
          physical_network:
            description: The physical network of its ports.
            type: str
          category:
            description: A free-form category.
            type: str
      network_data:
        version_added: 0.4.0
        description: The node's network_data, as O(network_data).
        type: dict
      virtual_media:
        version_added: 0.4.0
        description: The node's virtual media, as O(virtual_media).
        type: list
        elements: dict
        suboptions:
          device_type:
            description: The virtual device.
            type: str
            required: true
            choices: [cdrom, disk, floppy]
          image_url:
            description: The image to insert.
            type: str
          download_source:
            description: Who downloads the image, as O(virtual_media[].download_source).
            type: str
            default: http
            choices: [http, local]
          state:
            description: V(present) inserts the image, V(absent) ejects the device.
            type: str
            default: present
            choices: [present, absent]
      traits:
        description: The node's traits.
        type: list
        elements: str
      extra:
        description: Keys of the node's C(extra).
        type: dict
      instance_info:
        description: Keys of the node's C(instance_info).
        type: dict
      conductor_group:
        description: The conductor group.
        type: str
      shard:
        description: The shard.
        type: str
      owner:
        description: The project that owns the node.
        type: str
      lessee:
        description: The project the node is leased to.
        type: str
      description:
        description: A free-form description.
        type: str
      automated_clean:
        description: Whether Ironic runs automated cleaning on the node.
        type: bool
      protected:
        description: Whether the node is protected, as O(protected).
        type: bool
      protected_reason:
        description: Why the node is protected.
        type: str
      retired:
        description: Whether the node is retired, as O(retired).
        type: bool
      retired_reason:
        description: Why the node is retired.
        type: str
      disable_power_off:
        description: Whether the node must never be powered off, as O(disable_power_off).
        type: bool
      state:
        description: V(present) or V(absent); the task's O(state) when not given.
        type: str
        choices: [present, absent]
      keep_workload:
        version_added: 0.4.0
        description: As O(keep_workload); with O(nodes[].state=absent), the task's when not given.
        type: bool
      provision_state:
        version_added: 0.3.0
        description: As O(provision_state); the task's when not given.
        type: str
        choices: [enroll, manageable, available, active, rescue]
      maintenance:
        version_added: 0.3.0
        description: As O(maintenance); the task's when not given.
        type: bool
      maintenance_reason:
        version_added: 0.3.0
        description: As O(maintenance_reason); the task's when not given.
        type: str
      power:
        version_added: 0.3.0
        description: As O(power); the task's when not given.
        type: str
        choices: [powered_off, powered_on, rebooted, soft_powered_off, soft_rebooted]
      adopt:
        version_added: 0.3.0
        description: As O(adopt); the task's when not given.
        type: bool
      allow_destructive:
        version_added: 0.3.0
        description: As O(allow_destructive); the task's when not given.
        type: bool
      deploy_steps:
        version_added: 0.3.0
        description: As O(deploy_steps); the task's when not given.
        type: list
        elements: dict
      inspection:
        version_added: 0.3.0
        description: As O(inspection); the task's when not given.
        type: str
        choices: [skip, once, always]
      unhold:
        version_added: 0.3.0
        description: As O(unhold); the task's when not given.
        type: bool
  concurrency:
    version_added: 0.2.0
    description:
      - With O(nodes), how many node records (with their ports and traits) are written at once; nodes that
        need no change cost no request. It also bounds how many nodes set their maintenance or power at once, and
        how many may be moving at once to their O(provision_state).
      - The default, V(1), sends one write at a time, which every Ironic takes. An Ironic on MySQL or PostgreSQL
        takes more at once. On SQLite, concurrent writes wait for each other; a
        write Ironic answers with C(database is locked) is sent again with backoff.
      - O(wave_size) is the outer limit, how many nodes a task takes in hand before it checks they are healthy;
        O(concurrency) is the inner one, how many of those at once.
    type: int
    default: 1
  uuid:
    description:
      - The UUID to give the node when it is created. Ignored for an existing node.
    type: str
  driver:
    description:
      - The hardware type, for example V(redfish), V(ipmi), V(idrac), V(ilo), V(fake-hardware) or
        V(manual-management). Required to create a node.
      - It must be enabled in Ironic (C(enabled_hardware_types)); the module checks before writing.
    type: str
  driver_info:
    description:
      - Keys of the node's C(driver_info), which tell Ironic how to reach its BMC and boot it.
      - A key given as null is removed. Keys not given are left alone.
      - Secret keys (passwords, Kg keys, tokens) are never compared with the node; see O(update_secrets).
    type: dict
  validate_driver_info:
    description:
      - Check O(driver_info) against the schema of O(driver) before any request is made.
      - Set to V(false) to pass vendor-specific keys, or to use a hardware type this collection has no schema for.
      - Checking keys takes the Python library C(jsonschema) (the collection's C(requirements.txt)); a
        O(driver_info) that sets no key is checked without it.
    type: bool
    default: true
  properties:
    description:
      - Keys of the node's C(properties), for example C(cpu_arch), C(memory_mb) or C(root_device).
      - A key given as null is removed. Keys not given, such as those inspection fills in, are left alone.
      - C(cpus), C(memory_mb) and C(local_gb) are integers, as Ironic documents them. Given as a string of decimal
        digits (V(properties=cpus=8) in C(name=value) form, or a templated value, makes V("8")), the value is sent as
        the integer with a warning that names the property; any other value that is not a whole number (V(eight),
        V(8GB), V(8.5), a list) is refused before anything is sent.
    type: dict
  resource_class:
    description:
      - The resource class the Compute service schedules the node as.
    type: str
  interfaces:
    description:
      - The node's hardware interfaces. An interface not given keeps its current value, on creation the
        default of the hardware type.
    type: dict
    suboptions:
      bios:
        description: The BIOS interface.
        type: str
      boot:
        description: The boot interface, for example V(ipxe), V(pxe) or V(redfish-virtual-media).
        type: str
      console:
        description: The console interface.
        type: str
      deploy:
        description: The deploy interface, for example V(direct) or V(ramdisk).
        type: str
      firmware:
        description: The firmware interface.
        type: str
      inspect:
        description: The inspect interface, for example V(agent) or V(redfish).
        type: str
      management:
        description: The management interface.
        type: str
      network:
        description: The network interface, for example V(flat), V(neutron) or V(noop).
        type: str
      power:
        description: The power interface.
        type: str
      raid:
        description: The RAID interface.
        type: str
      rescue:
        description: The rescue interface.
        type: str
      storage:
        description: The storage interface.
        type: str
      vendor:
        description: The vendor interface.
        type: str
  ports:
    description:
      - The node's ports (network interfaces), matched by MAC address. Ports of the node not listed are
        deleted; an empty list deletes them all. When not given, ports are not touched.
      - A MAC address already used by a port of another node fails the task before anything changes.
    type: list
    elements: dict
    suboptions:
      address:
        description:
          - The MAC address, six hexadecimal octets separated by colons. Case does not matter.
        type: str
        required: true
      pxe_enabled:
        description:
          - Whether the node boots from the network through this port. Ironic's default on creation is V(true).
        type: bool
      physical_network:
        description:
          - The physical network the port is connected to.
        type: str
      local_link_connection:
        description:
          - The switch port it is cabled to, with C(switch_id), C(port_id) and optionally C(switch_info).
        type: dict
      port_group:
        version_added: 0.4.0
        description:
          - The name of the port group (bond) the port belongs to, declared in O(port_groups) or, when O(port_groups)
            is not given, one the node has. An empty string takes the port out of its group. Not given, the port
            stays in the group it is in, unless that group is deleted.
          - Ironic API 1.24 (the port's C(portgroup_uuid)). Ironic changes a port's group only in V(enroll),
            V(manageable), V(inspecting) or in maintenance.
        type: str
  port_groups:
    version_added: 0.4.0
    description:
      - The node's port groups (bonds), matched by name, made exactly this list; a port group of the node not listed
        is deleted, once its ports have left it (an empty list deletes them all). When not given, port groups are not
        touched. Ports join a group with O(ports[].port_group).
      - The order Ironic needs is kept. The ports are written first, then the port groups are created and updated,
        then ports leave and join groups, and the groups no longer declared are deleted last.
      - Port groups need Ironic API 1.23, their O(port_groups[].mode) and O(port_groups[].properties) 1.26,
        O(port_groups[].physical_network) 1.102 and O(port_groups[].category) 1.103. On an older API, declaring one
        fails before anything is written, naming the version.
      - A name another node's port group has (names are unique across Ironic), or one given twice, fails the task
        before anything is written.
      - Deleting the node (O(state=absent)) deletes its port groups with it.
    type: list
    elements: dict
    suboptions:
      name:
        description:
          - The name of the port group; letters, digits, C(.), C(_), C(~) and C(-), not a UUID. It identifies the
            group; the module never renames one.
        type: str
        required: true
      address:
        description:
          - The MAC address of the bond, six hexadecimal octets separated by colons. Case does not matter.
        type: str
      mode:
        description:
          - The bonding mode, for example V(active-backup) or V(802.3ad). Not given on creation, Ironic's
            C([DEFAULT]default_portgroup_mode) applies.
        type: str
      properties:
        description:
          - The bond's properties, for example C(miimon) or C(xmit_hash_policy). Replaced whole when given.
        type: dict
      standalone_ports_supported:
        description:
          - Whether the group's ports may also be used alone (Ironic's default is V(true)).
        type: bool
      physical_network:
        description:
          - The physical network the group's ports are connected to (Ironic API 1.102).
        type: str
      category:
        description:
          - A free-form category of the port group (Ironic API 1.103), at most 80 characters.
        type: str
  network_data:
    version_added: 0.4.0
    description:
      - The node's static network configuration for its ramdisk, in the OpenStack C(network_data.json) format with
        C(links), C(networks) and C(services) (Ironic API 1.66; on an older API it fails before anything is written).
      - Declared whole, the value given replaces the node's; an empty dictionary clears it. Not given, it is left alone.
      - Its shape (the three lists) is checked before anything is sent; Ironic checks the rest against its schema
        when it is written.
    type: dict
  virtual_media:
    version_added: 0.4.0
    description:
      - Images inserted in the virtual devices of the node's BMC, one entry per device. A device not listed is left
        alone (Ironic inserts images of its own to boot a node by virtual media).
      - Needs a management interface that has virtual media (V(redfish) and its relatives) and Ironic API 1.93.
        Ironic attaches and detaches from API 1.89, but shows what is attached only from 1.93, and the module
        compares that with the declaration before it writes; on an older API the task fails before anything is
        written.
      - Ironic attaches and detaches in the background; the module reads what the BMC shows until the image is
        inserted (or ejected), at most 10 minutes per device, and fails with the node's C(last_error) when Ironic
        reports a failure.
      - A URL's password (C(http://user:password@host/image.iso)) and the secret parameters of its query (a signed
        URL's C(temp_url_sig) or C(X-Amz-Signature)) are masked in results, diffs and messages.
      - Each attach records its O(virtual_media[].image_url), secrets masked, in the node's C(extra) under
        C(baremetal_lifecycle_virtual_media) (the key goes when no device has an image). Ironic's copy of an image
        (O(virtual_media[].download_source=local)) does not say what it is a copy of, so it counts as the declared image
        only when that record names it, otherwise the declared image is inserted in its place. A URL that differs
        only by its password or signature is the same image.
    type: list
    elements: dict
    suboptions:
      device_type:
        description:
          - The virtual device, V(cdrom), V(disk) (a USB stick) or V(floppy). A BMC without such a device fails the
            task before anything is written.
        type: str
        required: true
        choices: [cdrom, disk, floppy]
      image_url:
        description:
          - The image to insert, an C(http), C(https), C(nfs), C(cifs) or C(smb) URL. Required unless
            O(virtual_media[].state=absent).
        type: str
      download_source:
        description:
          - V(http) gives the URL to the BMC, which downloads the image itself; the image the BMC shows is compared
            with O(virtual_media[].image_url).
          - V(local) has the conductor download the image and serve its copy to the BMC, from its C([deploy]http_url)
            (C(nfs), C(cifs) and C(smb) URLs cannot be); the BMC then shows Ironic's copy.
          - Ironic 39.0 never passes the source on to its conductor, which then always copies the image as with
            V(local), whatever is given here.
        type: str
        default: http
        choices: [http, local]
      state:
        description:
          - V(present) inserts the image (replacing another one), V(absent) ejects the device.
        type: str
        default: present
        choices: [present, absent]
  traits:
    description:
      - The node's traits, standard ones or custom ones starting with C(CUSTOM_). The node gets exactly this list.
    type: list
    elements: str
  extra:
    description:
      - Keys of the node's C(extra), free-form metadata. A key given as null is removed; keys not given are left alone.
    type: dict
  instance_info:
    description:
      - Keys of the node's C(instance_info), for example C(image_source). A key given as null is removed;
        keys not given are left alone. Secret keys are handled as in O(driver_info).
    type: dict
  conductor_group:
    description:
      - The conductor group that manages the node. Ironic stores it in lower case, and this module sends it so,
        because Ironic looks up the conductors of a new node's group as the request spells it.
      - Ironic refuses a group that no conductor serves.
    type: str
  shard:
    version_added: 0.2.0
    description:
      - The shard the node belongs to, which splits a big fleet between services (Ironic API 1.82).
    type: str
  owner:
    description:
      - The project that owns the node.
    type: str
  lessee:
    description:
      - The project the node is leased to.
    type: str
  description:
    description:
      - A free-form description of the node.
    type: str
  automated_clean:
    description:
      - Whether Ironic runs automated cleaning on the node. When not given, the conductor's setting applies.
    type: bool
  protected:
    version_added: 0.2.0
    description:
      - Whether the node is protected. Ironic refuses to undeploy, rebuild or delete a protected node.
      - Ironic protects only V(active) or V(rescue) nodes; declaring V(true) on another node fails before
        anything is sent. V(false) also clears O(protected_reason).
    type: bool
  protected_reason:
    version_added: 0.2.0
    description:
      - Why the node is protected. Only kept while the node is protected.
      - A reason that holds a secret (the value of a key named like one, such as C(password=...), or a URL's
        password) fails the task before any write. The task masks it in its output, but Ironic stores the text as
        typed and shows it to anyone who can read the node.
    type: str
  retired:
    version_added: 0.2.0
    description:
      - Whether the node is retired. Ironic does not make a retired node available again.
      - Ironic does not retire an V(available) node; V(false) also clears O(retired_reason).
    type: bool
  retired_reason:
    version_added: 0.2.0
    description:
      - Why the node is retired. Only kept while the node is retired.
      - A reason that holds a secret (the value of a key named like one, such as C(password=...), or a URL's
        password) fails the task before any write. The task masks it in its output, but Ironic stores the text as
        typed and shows it to anyone who can read the node.
    type: str
  disable_power_off:
    version_added: 0.2.0
    description:
      - Whether the node is hardware that must never be powered off (Ironic API 1.95; on an older API,
        declaring it fails before anything is sent, naming the version).
      - Ironic then reboots the node where it would power it off, and refuses to power it off;
        M(baremetal.lifecycle.baremetal_power) refuses V(powered_off) and V(soft_powered_off) before sending anything.
    type: bool
  state:
    description:
      - V(present) creates or updates the node. A new node is left in V(enroll).
      - V(absent) deletes the node and its ports. A node in a state Ironic cannot delete it from is first
        brought to V(manageable) by the same engine as M(baremetal.lifecycle.baremetal_provision_state);
        tearing down a workload on the way needs O(allow_destructive). A node that does not exist is a no-op.
        A delete Ironic would refuse (an allocation or an instance holds the node and the move does not undeploy it,
        or it is protected) is refused before any write, naming the fix; Ironic deletes the ports with the node.
      - With O(keep_workload=true), V(absent) deletes the record only and leaves the workload running.
    type: str
    default: present
    choices: [present, absent]
  keep_workload:
    version_added: 0.4.0
    description:
      - With O(state=absent), delete the node's record from this Ironic without ending its workload, to move the
        server to another Ironic (which adopts it, see the examples) or hand it over. There is no provision move, no
        undeploy and no cleaning, and the power is left alone.
      - A node Ironic would not delete as it is (out of maintenance, in a provision state other than V(enroll),
        V(manageable) or V(adopt failed)) is first put in maintenance, with a reason saying it is being detached;
        Ironic deletes a node in maintenance whatever its provision state. The DELETE takes its ports with it.
      - Refused before anything is written for a protected node, which Ironic refuses to delete (set O(protected=false)
        first), and for a node in the middle of a move (wait until it settles). RV(detach) says what was done.
      - Cannot be combined with O(allow_destructive=true), nor with O(state=present).
      - In check mode nothing is written, and RV(detach) says whether maintenance would be set before the delete.
    type: bool
    default: false
  update_secrets:
    description:
      - When secret keys of O(driver_info) and O(instance_info) are sent to Ironic, which never shows their values.
      - V(on_create) sends them when the node is created, and when the node lacks the key; an existing secret
        value is never compared nor replaced, so reruns report no change.
      - When Ironic's record of the node says its BMC refused the credentials Ironic holds (a node in V(enroll)
        whose verification failed, or a node in maintenance after its power sync failed, with an HTTP 401 from a
        Redfish BMC or a failed IPMI call) and the task gives a C(driver_info) secret that V(on_create) keeps, the
        task warns, naming the node and the keys (never their values). Set V(always) to write the corrected
        secret.
      - V(always) sends the given secret keys on every run, so the task always reports a change. Use it to
        rotate a password, then switch back.
      - A secret written to the C(driver_info) of an existing node is checked at once against its BMC; see O(verify_bmc).
    type: str
    default: on_create
    choices: [on_create, always]
  verify_bmc:
    version_added: 0.3.0
    description:
      - After writing a secret key of C(driver_info) (a BMC password rotated with O(update_secrets=always), or one the
        node lacked) to an existing node, check right away that Ironic can use it. The node's management and power
        interfaces must validate, and Ironic must read the node's boot device from the BMC, which it does at once
        with the credentials it now holds (for Redfish this is the request that reads the power state).
      - A node that fails the check has an error naming it with Ironic's reason (secrets masked), and counts as
        failed; the new values stay in its record. Without the check, Ironic finds out at its periodic power sync
        and puts the node in maintenance.
      - Nodes being created are not checked (Ironic verifies the BMC when they leave V(enroll)), nor are nodes whose
        write sends no secret of C(driver_info). Check mode writes nothing and checks nothing.
      - The check is only as strong as the interfaces; a V(fake) or V(noop) management interface never asks a BMC.
      - Set to V(false) to store credentials for a BMC that is not reachable yet.
    type: bool
    default: true
  allow_destructive:
    description:
      - With O(state=absent), allow the steps that tear down the node's workload (for example from V(active))
        on the way to V(manageable). Without it, deleting such a node fails and names the step.
      - With O(provision_state), allow the steps that tear down or re-image a workload on the way (for example
        V(active) to V(available)), as in M(baremetal.lifecycle.baremetal_provision_state).
    type: bool
    default: false
  provision_state:
    version_added: 0.3.0
    description:
      - The stable provision state the node should rest in, reached after its record is written, by the same
        engine as M(baremetal.lifecycle.baremetal_provision_state), whose O(baremetal.lifecycle.baremetal_provision_state#module:state)
        it takes. Not given, the node's provision state is left alone.
      - A node in maintenance that O(maintenance) does not declare is not moved; the node fails naming its maintenance.
      - Returned per node in RV(provision).
    type: str
    choices: [enroll, manageable, available, active, rescue]
  maintenance:
    version_added: 0.3.0
    description:
      - Whether the node is in maintenance once the task is done. V(false) clears it (with its reason) before the
        move to O(provision_state); V(true) sets it after the move and the power, and a node already in maintenance
        that must move is taken out of it for the move and put back with its reason (RV(maintenance) says
        C(cleared_for_move)).
      - Not given, maintenance is left alone.
    type: bool
  maintenance_reason:
    version_added: 0.3.0
    description:
      - Why the node is in maintenance; only used with O(maintenance=true). When not given, the reason of a node
        already in maintenance is kept; an empty string clears it.
      - Ironic keeps no reason for a node out of maintenance, so a reason given where O(maintenance) is V(false) or
        not given fails the task before any write, as does an element's own C(maintenance_reason) when that
        element's maintenance is not V(true), or a task's reason that no element with maintenance V(true) takes.
      - A reason that holds a secret (the value of a key named like one, such as C(password=...), or a URL's
        password) fails the task before any write. The task masks it in its output, but Ironic stores the text as
        typed and shows it to anyone who can read the node.
    type: str
  power:
    version_added: 0.3.0
    description:
      - The node's power once it rests in its provision state, as O(baremetal.lifecycle.baremetal_power#module:state)
        of M(baremetal.lifecycle.baremetal_power). V(rebooted) and V(soft_rebooted) are actions, done on every run.
      - Not given, power is left alone (a deploy powers the node on, for example).
    type: str
    choices: [powered_off, powered_on, rebooted, soft_powered_off, soft_rebooted]
  adopt:
    version_added: 0.3.0
    description:
      - Reach V(active) from V(manageable) by adoption, as O(baremetal.lifecycle.baremetal_provision_state#module:adopt).
    type: bool
    default: false
  config_drive:
    version_added: 0.3.0
    description:
      - The config drive to deploy with, as O(baremetal.lifecycle.baremetal_provision_state#module:config_drive).
        Task-wide only.
    type: raw
  deploy_steps:
    version_added: 0.3.0
    description:
      - Deploy steps to run when deploying, as O(baremetal.lifecycle.baremetal_provision_state#module:deploy_steps).
    type: list
    elements: dict
  inspection:
    version_added: 0.3.0
    description:
      - Whether to inspect the node's hardware on the way to O(provision_state), as
        O(baremetal.lifecycle.baremetal_provision_state#module:inspection). V(once) inspects a node never inspected.
    type: str
    choices: [skip, once, always]
    default: skip
  unhold:
    version_added: 0.3.0
    description:
      - Resume a node in a hold state, as O(baremetal.lifecycle.baremetal_provision_state#module:unhold).
    type: bool
    default: false
  rescue_password:
    version_added: 0.3.0
    description:
      - The password of the rescue user, required when the plan rescues the node (O(provision_state=rescue)). Task-wide only.
    type: str
  validate_interfaces:
    description:
      - After the task, run Ironic's validation of the node's interfaces and return it in RV(validation).
        It reports; it does not fail the task.
    type: bool
    default: false
  timeout:
    description:
      - With O(state=absent), the seconds bringing the node to V(manageable) may take.
      - With O(provision_state), the seconds the moves of the task may take; with O(power), the seconds each power
        action may take (for soft actions also Ironic's own timeout, as in M(baremetal.lifecycle.baremetal_power)).
      - With O(virtual_media), the seconds each attach or detach may take until the BMC shows it.
      - The seconds each node's writes (its record, traits, ports, port groups, virtual media, maintenance, deletion)
        wait for a node a conductor keeps locked (for example while it waits for a slow BMC), from its first write.
    type: int
    default: 1800
requirements:
  - jsonschema, to validate a O(driver_info) that sets a key (O(validate_driver_info)); a node declared without
    O(driver_info) does not need it
notes:
  - Ironic only lets some fields change in some provision states (for example C(resource_class) or interfaces of an
    V(active) node, a port's C(pxe_enabled) on an V(available) one). Every node's planned writes are checked against
    those rules before the task's first write, in check mode too; a refusal names every refused node, the field, its
    state and the fix, and no node is written. The collection's docs/engine.md lists the rules and what cannot be
    known ahead.
  - Ironic can only update dictionary keys made of letters, digits, C(_) and C(-); other keys are refused.
seealso:
  - module: baremetal.lifecycle.baremetal_provision_state
  - module: baremetal.lifecycle.baremetal_node_info
  - module: baremetal.lifecycle.baremetal_maintenance
  - module: baremetal.lifecycle.baremetal_power
'''

EXAMPLES = r'''
- name: Give every node of a resource class the same owner and trait list (only the nodes that differ are written)
  baremetal.lifecycle.baremetal_node:
    cloud: baremetal-lifecycle-local
    select:
      resource_class: baremetal-gpu
    owner: gpu-team
    traits: [CUSTOM_GPU_A100]

- name: Enroll a Redfish server (here behind a sushy-tools emulator) with its port
  baremetal.lifecycle.baremetal_node:
    cloud: baremetal-lifecycle-local
    name: rack1-node07
    driver: redfish
    driver_info:
      redfish_address: http://127.0.0.1:8000
      redfish_system_id: /redfish/v1/Systems/1
      redfish_username: admin
      redfish_password: "{{ vault_bmc_password }}"
    properties:
      cpu_arch: x86_64
    resource_class: baremetal.large
    interfaces:
      boot: redfish-virtual-media
    ports:
      - address: "52:54:00:12:34:56"
        physical_network: provisioning
        local_link_connection:
          switch_id: "aa:bb:cc:dd:ee:ff"
          port_id: Ethernet1/7
    traits:
      - CUSTOM_RACK1

- name: Or enroll it and make it available in one task (manage verifies the BMC credentials, provide cleans it)
  baremetal.lifecycle.baremetal_node:
    cloud: baremetal-lifecycle-local
    name: rack1-node07
    driver: redfish
    driver_info:
      redfish_address: http://127.0.0.1:8000
      redfish_system_id: /redfish/v1/Systems/1
      redfish_username: admin
      redfish_password: "{{ vault_bmc_password }}"
    provision_state: available

- name: Power a node off and take it out of maintenance, in one task
  baremetal.lifecycle.baremetal_node:
    name: rack1-node07
    maintenance: false
    power: powered_off

- name: Deploy a node and keep it in maintenance (set after the deploy), saying why
  baremetal.lifecycle.baremetal_node:
    name: rack1-node07
    instance_info:
      image_source: http://127.0.0.1:8080/images/ubuntu.qcow2
    provision_state: active
    maintenance: true
    maintenance_reason: burn-in before handover, ticket OPS-1235

- name: Move the node to another BMC address and drop a key; other keys stay as they are
  baremetal.lifecycle.baremetal_node:
    name: rack1-node07
    driver_info:
      redfish_address: https://127.0.0.1:8443
      redfish_verify_ca: null

- name: Rotate the BMC password (reports changed on every run while update_secrets is always); the task fails,
    naming Ironic's reason, when Ironic cannot use the new password with the BMC (verify_bmc)
  baremetal.lifecycle.baremetal_node:
    name: rack1-node07
    driver_info:
      redfish_password: "{{ vault_new_bmc_password }}"
    update_secrets: always

- name: Pass a vendor-specific key the schema of the hardware type does not know
  baremetal.lifecycle.baremetal_node:
    name: rack1-node07
    driver_info:
      vendor_boot_quirk: "on"
    validate_driver_info: false

- name: Enroll an IPMI server (here a virtualbmc) and check what Ironic thinks of its interfaces
  baremetal.lifecycle.baremetal_node:
    name: rack2-node01
    uuid: 4b0b0a1e-1c52-4cb5-9f61-6d1d3d0c5a10
    driver: ipmi
    driver_info:
      ipmi_address: 127.0.0.1
      ipmi_port: 6231
      ipmi_username: admin
      ipmi_password: "{{ vault_ipmi_password }}"
    conductor_group: rack2
    owner: infra
    description: Spare database server
    automated_clean: true
    extra:
      asset_tag: A-1234
    validate_interfaces: true
  register: enrolled

- name: Set the image to deploy; keys not named stay as they are
  baremetal.lifecycle.baremetal_node:
    name: rack2-node01
    instance_info:
      image_source: http://127.0.0.1:8080/images/ubuntu.qcow2
      image_checksum: null

- name: Declare a whole rack in one task; only the nodes that differ are written
  baremetal.lifecycle.baremetal_node:
    nodes:
      - name: rack3-node01
        driver: ipmi
        driver_info:
          ipmi_address: 127.0.0.1
          ipmi_port: 6231
          ipmi_username: admin
          ipmi_password: "{{ vault_ipmi_password }}"
        shard: rack3
        conductor_group: rack3
        ports:
          - address: "52:54:00:03:00:01"
      - name: rack3-node02
        driver: fake-hardware
        shard: rack3
        traits: [CUSTOM_RACK3]
      - name: rack3-node09
        state: absent
      - name: rack3-node10
        driver: fake-hardware
        provision_state: manageable
        maintenance: true
        maintenance_reason: waiting for a new disk
    provision_state: available
    concurrency: 4
  register: rack3

- name: Bond two ports of a node, give its ramdisk a static address, and insert a boot ISO in its virtual CD
  baremetal.lifecycle.baremetal_node:
    name: rack1-node07
    port_groups:
      - name: rack1-node07-bond0
        address: "52:54:00:12:34:56"
        mode: 802.3ad
        properties:
          miimon: "100"
        standalone_ports_supported: false
    ports:
      - address: "52:54:00:12:34:56"
        physical_network: provisioning
        port_group: rack1-node07-bond0
      - address: "52:54:00:12:34:57"
        physical_network: provisioning
        port_group: rack1-node07-bond0
    network_data:
      links:
        - {id: bond0, type: bond, bond_mode: 802.3ad, bond_links: [port0, port1],
           ethernet_mac_address: "52:54:00:12:34:56"}
        - {id: port0, type: phy, ethernet_mac_address: "52:54:00:12:34:56"}
        - {id: port1, type: phy, ethernet_mac_address: "52:54:00:12:34:57"}
      networks:
        - {id: provisioning, type: ipv4, link: bond0, ip_address: 192.0.2.7, netmask: 255.255.255.0,
           network_id: provisioning}
      services: []
    virtual_media:
      - device_type: cdrom
        image_url: http://127.0.0.1:8080/images/rescue.iso

- name: Eject the ISO again, and take the ramdisk's static addressing away
  baremetal.lifecycle.baremetal_node:
    name: rack1-node07
    network_data: {}
    virtual_media:
      - device_type: cdrom
        state: absent

- name: Protect a deployed node from being torn down, saying why
  baremetal.lifecycle.baremetal_node:
    name: rack1-node07
    protected: true
    protected_reason: Production database, ticket OPS-1234

- name: Delete a node, tearing down its workload if it is deployed
  baremetal.lifecycle.baremetal_node:
    name: rack1-node07
    state: absent
    allow_destructive: true
    timeout: 3600

# Move a deployed server to another Ironic without ending its workload: detach it here, then enroll it there and
# adopt it as active (Ironic takes the workload over without deploying).
- name: Detach the node from the old Ironic, its workload kept running
  baremetal.lifecycle.baremetal_node:
    cloud: old-ironic
    name: rack1-node07
    state: absent
    keep_workload: true

- name: Enroll it on the new Ironic, with the image it runs
  baremetal.lifecycle.baremetal_node:
    cloud: new-ironic
    name: rack1-node07
    driver: redfish
    driver_info:
      redfish_address: https://10.0.0.7
      redfish_system_id: /redfish/v1/Systems/1
      redfish_username: admin
      redfish_password: "{{ vault_bmc_password }}"
    instance_info:
      image_source: http://images.example.com/ubuntu-24.04.qcow2
      image_checksum: sha256:4e2f...

- name: Adopt it there as active
  baremetal.lifecycle.baremetal_provision_state:
    cloud: new-ironic
    node: rack1-node07
    state: active
    adopt: true
'''

RETURN = r'''
node:
  description:
    - The node after the task (its provision state, maintenance and power after every stage), with secret values
      masked. Never contains C(instance_info).
    - C(disable_power_off) (Ironic API 1.95) and C(health) (Ironic API 1.109, the hardware's health as the BMC reports it)
      are absent where Ironic is older.
    - Null when the node does not exist after the task, and in check mode when it would be created.
    - C(port_groups), when the task declares O(port_groups) or a port's O(ports[].port_group), the node's port groups,
      each with the MAC addresses of its ports.
    - C(virtual_media), when the task declares O(virtual_media), the image each declared device holds (null when
      none), URL passwords masked.
  returned: always
  type: dict
  sample:
    uuid: 4b0b0a1e-1c52-4cb5-9f61-6d1d3d0c5a10
    name: rack1-node07
    provision_state: enroll
    target_provision_state: null
    power_state: null
    target_power_state: null
    maintenance: false
    maintenance_reason: null
    last_error: null
    driver: redfish
    driver_info: {redfish_address: 'http://127.0.0.1:8000', redfish_username: admin, redfish_password: '********'}
    properties: {cpu_arch: x86_64}
    resource_class: baremetal.large
    extra: {}
    conductor_group: ''
    shard: null
    owner: null
    lessee: null
    description: null
    automated_clean: null
    traits: [CUSTOM_RACK1]
    protected: false
    protected_reason: null
    retired: false
    retired_reason: null
    disable_power_off: false
    health: OK
    interfaces: {boot: redfish-virtual-media, power: redfish, management: redfish}
    ports: [{address: '52:54:00:12:34:56', pxe_enabled: true, physical_network: provisioning,
             local_link_connection: {switch_id: 'aa:bb:cc:dd:ee:ff', port_id: Ethernet1/7}}]
    port_groups: [{name: rack1-node07-bond0, address: '52:54:00:12:34:56', mode: 802.3ad, properties: {miimon: '100'},
                   standalone_ports_supported: false, physical_network: null, category: null,
                   ports: ['52:54:00:12:34:56', '52:54:00:12:34:57']}]
    virtual_media: {cdrom: 'http://127.0.0.1:8080/images/rescue.iso'}
created:
  description: Whether the node was (or in check mode would be) created.
  returned: when O(state=present)
  type: bool
  sample: true
bmc_verified:
  version_added: 0.3.0
  description:
    - Whether Ironic could use the node's BMC with the secret of C(driver_info) the task wrote (see O(verify_bmc)).
      V(false) comes with the error (C(msg), or C(error) of the node in RV(nodes)).
    - Null when the task wrote no such secret, in check mode, and with O(verify_bmc=false); null too, with a warning,
      when Ironic's answer cannot tell whether the BMC took the secret, that is for an ipmitool node with
      C(ipmi_hex_kg_key) whose BMC shows no boot device (C(ipmitool) reports the session a BMC refuses as a success
      there).
    - With O(nodes) or O(select), each element of RV(nodes) has it.
  returned: when O(state=present)
  type: bool
  sample: true
provision:
  version_added: 0.3.0
  description:
    - With O(provision_state), the move to it, as RV(baremetal.lifecycle.baremetal_provision_state#module:plan) and
      RV(baremetal.lifecycle.baremetal_provision_state#module:transitions) of M(baremetal.lifecycle.baremetal_provision_state)
      say it, whether it changed the node, and what an inspection it ran learned.
    - With O(nodes) or O(select), each element of RV(nodes) has it.
  returned: with O(provision_state), when the node exists and its earlier stages succeeded
  type: dict
  contains:
    plan:
      description: The steps planned, in order (in check mode, the plan).
      type: list
      elements: dict
    transitions:
      description: The steps executed, with the state each ended in and how long it took.
      type: list
      elements: dict
    changed:
      description: Whether the move changed the node (in check mode, whether it would).
      type: bool
    inspection:
      description: What the inspection this task ran learned, as in M(baremetal.lifecycle.baremetal_provision_state).
      type: dict
      returned: when the task inspected the node
  sample:
    plan: [{verb: manage, name: manage, from: enroll, to: manageable, cleans_disks: false, destructive: false, reboots: false}]
    transitions: [{verb: manage, from: enroll, to: manageable, seconds: 0.21}]
    changed: true
maintenance:
  version_added: 0.3.0
  description:
    - With O(maintenance), the node's maintenance after the task (in check mode, what it would be), its reason (masked
      where it quotes a secret), whether the task changed it, and C(cleared_for_move), true when the task took the
      node out of maintenance for its move and set it again.
    - With O(nodes) or O(select), each element of RV(nodes) has it.
  returned: with O(maintenance), when the node exists and its earlier stages succeeded
  type: dict
  sample: {maintenance: true, maintenance_reason: burn-in before handover, changed: true, cleared_for_move: false}
power:
  version_added: 0.3.0
  description:
    - With O(power), the node's power state after the task (in check mode, what it would be) and whether the task
      changed it.
    - With O(nodes) or O(select), each element of RV(nodes) has it.
  returned: with O(power), when the node exists and its earlier stages succeeded
  type: dict
  sample: {power_state: power off, changed: true}
not_planned:
  version_added: 0.3.0
  description:
    - In check mode, for a node that would be created and declares O(provision_state), O(maintenance) or O(power),
      why those are not planned (the node does not exist yet).
    - With O(nodes) or O(select), each element of RV(nodes) has it where it applies.
  returned: in check mode, for a node that would be created
  type: str
  sample: >-
    node rack1-node07 does not exist yet: it would be created by this task, so its provision_state cannot be planned
    before it is. Run the task without check mode.
validation:
  description: Ironic's validation of each interface, with C(result) and, when it fails, C(reason).
  returned: when O(validate_interfaces=true) and the node exists
  type: dict
  sample: {power: {result: true}, deploy: {result: false, reason: Node has no instance_info image_source}}
plan:
  description: With O(state=absent), the provision steps planned to bring the node to V(manageable) before deleting it.
  returned: when O(state=absent)
  type: list
  elements: dict
  sample: [{verb: deleted, name: undeploy, from: active, to: available, cleans_disks: true, destructive: true},
           {verb: manage, name: manage, from: available, to: manageable, cleans_disks: false, destructive: false}]
detach:
  version_added: 0.4.0
  description:
    - With O(state=absent) and O(keep_workload=true), how the record was deleted (in check mode, would be) with its
      workload kept, the provision state the node was left in, whether maintenance was set first, and the node's
      maintenance reason when deleted (masked where it quotes a secret).
    - With O(nodes) or O(select), each element of RV(nodes) has it.
  returned: with O(keep_workload=true), when the node existed
  type: dict
  contains:
    provision_state:
      description: The provision state the node was in, and its hardware left in.
      type: str
    maintenance_set:
      description: Whether the node was put in maintenance before the DELETE (false when it was in maintenance already,
        or Ironic deletes it from its provision state).
      type: bool
    maintenance_reason:
      description: Its maintenance reason when deleted.
      type: str
  sample:
    provision_state: active
    maintenance_set: true
    maintenance_reason: >-
      being detached by baremetal.lifecycle.baremetal_node (keep_workload): its record is deleted, its workload kept
transitions:
  description: With O(state=absent), the provision steps executed, with the state each ended in.
  returned: when O(state=absent)
  type: list
  elements: dict
  sample: [{verb: manage, from: available, to: manageable, seconds: 0.31}]
nodes:
  version_added: 0.2.0
  description:
    - With O(nodes) or O(select), one entry per element, in order, with C(name), C(changed), C(created), C(node) (as RV(node)),
      C(error) (null unless the node failed), C(bmc_verified) (as RV(bmc_verified)), and with O(state=absent) C(plan)
      and C(transitions) (and C(detach), as RV(detach), with O(keep_workload=true)); C(provision), C(maintenance),
      C(power) and C(not_planned) as RV(provision), RV(maintenance), RV(power) and RV(not_planned).
    - In diff mode, the top-level diff holds one entry per node that changes.
  returned: with O(nodes) or O(select)
  type: list
  elements: dict
  sample: [{name: rack3-node01, changed: true, created: true, error: null, bmc_verified: null, node: {name: rack3-node01}}]
totals:
  version_added: 0.2.0
  description: With O(nodes) or O(select), how many nodes there were, changed, failed and not started (with O(wave_size)), the seconds taken and the API calls.
  returned: with O(nodes) or O(select)
  type: dict
  sample: {nodes: 300, changed: 2, failed: 0, not_started: 0, seconds: 0.61, api_calls: 9}
failed_nodes:
  version_added: 0.2.0
  description: With O(nodes) or O(select), how the task names each node that failed (its error is in RV(nodes)).
  returned: with O(nodes) or O(select)
  type: list
  elements: str
  sample: ['nodes[3] (rack1-node07)']
waves:
  version_added: 0.3.0
  description:
    - With O(wave_size), the waves of the task, in the order they ran (or would run, in check mode), each the names
      the task gives its nodes. Each entry of RV(nodes) has C(wave), the number of its wave (null for a node that
      needs no change), and C(started), false for a node whose wave never started.
  returned: with O(wave_size)
  type: list
  elements: list
  sample: [['rack1-node01', 'rack1-node02'], ['rack1-node03']]
api_calls:
  description: The number of HTTP requests made to Ironic.
  returned: always
  type: int
  sample: 3
'''

from ansible_collections.baremetal.lifecycle.plugins.module_utils.fleet.runner import WAVE_SPEC, run, targets
from ansible_collections.baremetal.lifecycle.plugins.module_utils.ironic.lookup import SELECTION_SPEC
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.driver_info import require_validator
from ansible_collections.baremetal.lifecycle.plugins.module_utils.task.module import BaremetalModule
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.converge import declared_health, ensure_whole_nodes
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.declaration import ELEMENT_PROVISION_OPTIONS, PROVISION_OPTIONS, declarations_of
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.record import INTERFACES
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.options import OPTION_SPEC
from ansible_collections.baremetal.lifecycle.plugins.module_utils.engine.states import DECLARABLE_STATES, POWER_ACTIONS
from ansible_collections.baremetal.lifecycle.plugins.module_utils.common.validate import check_node_name
from ansible_collections.baremetal.lifecycle.plugins.module_utils.node.wiring import DEVICE_TYPES, DOWNLOAD_SOURCES

# The options that declare one node: the module's own, or those of each element of nodes.
RECORD_SPEC = dict(
    uuid=dict(type='str'),
    driver=dict(type='str'),
    driver_info=dict(type='dict'),
    properties=dict(type='dict'),
    resource_class=dict(type='str'),
    interfaces=dict(type='dict', options=dict((name, dict(type='str')) for name in INTERFACES)),
    ports=dict(type='list', elements='dict', options=dict(
        address=dict(type='str', required=True),
        pxe_enabled=dict(type='bool'),
        physical_network=dict(type='str'),
        local_link_connection=dict(type='dict'),
        port_group=dict(type='str'),
    )),
    port_groups=dict(type='list', elements='dict', options=dict(
        name=dict(type='str', required=True),
        address=dict(type='str'),
        mode=dict(type='str'),
        properties=dict(type='dict'),
        standalone_ports_supported=dict(type='bool'),
        physical_network=dict(type='str'),
        category=dict(type='str'),
    )),
    network_data=dict(type='dict'),
    virtual_media=dict(type='list', elements='dict', options=dict(
        device_type=dict(type='str', required=True, choices=list(DEVICE_TYPES)),
        image_url=dict(type='str'),
        download_source=dict(type='str', default='http', choices=list(DOWNLOAD_SOURCES)),
        state=dict(type='str', default='present', choices=['present', 'absent']),
    )),
    traits=dict(type='list', elements='str'),
    extra=dict(type='dict'),
    instance_info=dict(type='dict'),
    conductor_group=dict(type='str'),
    shard=dict(type='str'),
    owner=dict(type='str'),
    lessee=dict(type='str'),
    description=dict(type='str'),
    automated_clean=dict(type='bool'),
    protected=dict(type='bool'),
    protected_reason=dict(type='str'),
    retired=dict(type='bool'),
    retired_reason=dict(type='str'),
    disable_power_off=dict(type='bool'),
)

# What a node declares besides its record (declaration.STATE_FIELDS), brought about after it (node/stages.py).
STATE_SPEC = dict(
    provision_state=dict(type='str', choices=list(DECLARABLE_STATES)),
    maintenance=dict(type='bool'),
    maintenance_reason=dict(type='str'),
    power=dict(type='str', choices=sorted(POWER_ACTIONS)),
)

ELEMENT_SPEC = dict(RECORD_SPEC,
                    name=dict(type='str', required=True),
                    validate_driver_info=dict(type='bool'),
                    state=dict(type='str', choices=['present', 'absent']),
                    keep_workload=dict(type='bool'))
ELEMENT_SPEC.update(STATE_SPEC)
# An element's provision options default to the task's.
ELEMENT_SPEC.update((name, dict((key, value) for key, value in OPTION_SPEC[name].items() if key != 'default'))
                    for name in ELEMENT_PROVISION_OPTIONS)

ARGUMENT_SPEC = dict(RECORD_SPEC,
                     name=dict(type='str', aliases=['node']),
                     nodes=dict(type='list', elements='dict', options=ELEMENT_SPEC),
                     select=dict(type='dict', options=SELECTION_SPEC),
                     validate_driver_info=dict(type='bool', default=True),
                     state=dict(type='str', default='present', choices=['present', 'absent']),
                     keep_workload=dict(type='bool', default=False),
                     update_secrets=dict(type='str', default='on_create', choices=['on_create', 'always'],
                                         no_log=False),
                     validate_interfaces=dict(type='bool', default=False),
                     verify_bmc=dict(type='bool', default=True),
                     timeout=dict(type='int', default=1800),
                     concurrency=dict(type='int', default=1),
                     **WAVE_SPEC)
ARGUMENT_SPEC.update(STATE_SPEC)
ARGUMENT_SPEC.update((name, OPTION_SPEC[name]) for name in PROVISION_OPTIONS)


def main_logic(module):
    params = module.params
    if params['name'] is not None:
        check_node_name('name', params['name'])
    nodes = targets(module.client, params, {}, key='name', fields=('uuid', 'name'))
    for target, declaration in zip(nodes, declarations_of(params, nodes)):
        target.item = declaration
        if declaration.validate_driver_info:  # before the first wave changes anything
            require_validator(declaration.declared.get('driver_info'))

    def act(batch, check_mode):
        results = ensure_whole_nodes(module.client, [target.item for target in batch], params['update_secrets'],
                                     check_mode, concurrency=params['concurrency'], timeout=params['timeout'],
                                     verify_bmc=params['verify_bmc'])
        for result in results:
            if params['validate_interfaces'] and result['node'] and not result['error']:
                result['validation'] = module.client.validate_node(result['node']['uuid'])
        return results

    report = run(module, nodes, act, declared=lambda target: declared_health(target.item))
    if report.single:
        report.results[0].pop('name', None)
    module.finish(report)


def main():
    module = BaremetalModule(ARGUMENT_SPEC,
                             required_one_of=[('name', 'nodes', 'select')],
                             mutually_exclusive=[('nodes', option) for option in sorted(RECORD_SPEC) + ['name', 'select']]
                             + [('select', 'name'), ('select', 'uuid')])
    module.run(main_logic)


if __name__ == '__main__':
    main()
