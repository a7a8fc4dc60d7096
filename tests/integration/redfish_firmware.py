# -*- coding: utf-8 -*-
"""sushy-tools' emulator whose fake systems report a BIOS version: run as ``python redfish_firmware.py --config FILE``
(redfish.RedfishBMC does, given ``bios_versions``).

The emulator's fake system driver (2.2.0) has no firmware versions (``get_versions`` is not implemented), so a
system's ``BiosVersion`` is null and Ironic's redfish firmware interface records no ``bios`` component. This driver
is the fake one plus the versions each system's entry of ``SUSHY_EMULATOR_FAKE_SYSTEMS`` gives under
``firmware_versions`` (``{"BiosVersion": "1.2.0"}``), kept in the emulator's state as the rest of the system is. The
emulator itself is run as installed: its entry point, with this driver in the place of its fake one. Managers keep
the emulator's own ``FirmwareVersion`` (1.00) and ``Model``, which Ironic records as the ``bmc`` component.
"""

from __future__ import annotations

import copy
import sys

from sushy_tools.emulator import main as emulator
from sushy_tools.emulator.resources.systems import fakedriver


class FirmwareFakeDriver(fakedriver.FakeDriver):
    """The fake system driver with the firmware versions of each system's configuration."""

    def get_versions(self, identity):
        return copy.deepcopy(self._get(identity).get('firmware_versions') or {})

    def set_versions(self, identity, firmware_versions):
        system = self._get(identity)
        versions = dict(system.get('firmware_versions') or {}, **firmware_versions)
        self._update(system, firmware_versions=versions)


if __name__ == '__main__':
    # The emulator makes its systems driver from the module's FakeDriver when it first serves a system.
    fakedriver.FakeDriver = FirmwareFakeDriver
    sys.exit(emulator.main())
