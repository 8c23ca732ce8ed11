"""The 40-pin header's gpiochip found by its label (hw/gpio.py find_header_chip), on fake
/dev and /sys trees shaped like each model's and kernel's (gpiodetect listings of the
reports named in hw/gpio.py): the chip numbers move, the label does not.

In a fake tree the /dev entries are plain files, so the kernel's GPIO_GET_CHIPINFO ioctl
fails on them for real (ENOTTY) and the label comes from sysfs's ``of_node/compatible``;
the ioctl path is tested with an injected ioctl answering the kernel's struct."""

from __future__ import annotations

import grp
import os
import pwd
import struct
from pathlib import Path

import pytest
from support.unprivileged import shared_folder, unprivileged_files

from hw.config import GpioConfig
from hw.gpio import (
    GPIO_GET_CHIPINFO_IOCTL,
    ChipFinder,
    ChipNotFound,
    ChipNotPermitted,
    ChipNotReady,
    WrongChip,
    chip_label_ioctl,
    chip_labels,
    chip_numbers,
    find_header_chip,
    parse_chip_info,
)

RP1 = "raspberrypi,rp1-gpio"
BRCMSTB = "brcm,brcmstb-gpio"
BCM2711 = "brcm,bcm2711-gpio"
BCM2835 = "brcm,bcm2835-gpio"
FIRMWARE = "raspberrypi,firmware-gpio"


def fake_tree(root: Path, chips: dict[int, str], links: dict[int, int] | None = None) -> Path:
    """/dev/gpiochipN for each chip (its device-tree ``compatible`` in /sys), and
    /dev/gpiochipA -> gpiochipB links. Returns the root holding dev/ and sys/."""
    dev = root / "dev"
    dev.mkdir(parents=True)
    (dev / "gpiomem0").touch()  # not a chip
    for number, compatible in chips.items():
        (dev / f"gpiochip{number}").touch()
        node = root / "sys/bus/gpio/devices" / f"gpiochip{number}" / "of_node"
        node.mkdir(parents=True)
        (node / "compatible").write_bytes(compatible.encode() + b"\0")
    for alias, target in (links or {}).items():
        (dev / f"gpiochip{alias}").symlink_to(f"gpiochip{target}")
    return root


def header(root: Path) -> int | None:
    return find_header_chip(root / "dev", root / "sys")


def test_pi4(tmp_path: Path) -> None:
    root = fake_tree(tmp_path, {0: BCM2711, 1: FIRMWARE})  # 6.6: gpiochip0 [pinctrl-bcm2711]
    assert header(root) == 0
    assert chip_labels(root / "dev", root / "sys") == {0: "pinctrl-bcm2711", 1: None}


def test_pi_zero_2_w_and_pi3(tmp_path: Path) -> None:
    assert header(fake_tree(tmp_path, {0: BCM2835, 1: FIRMWARE})) == 0


def test_pi5_first_kernels_gpiochip4(tmp_path: Path) -> None:
    """Before 6.6.45: four brcmstb chips first, RP1 (the header) on gpiochip4."""
    root = fake_tree(tmp_path, {0: BRCMSTB, 1: BRCMSTB, 2: BRCMSTB, 3: BRCMSTB, 4: RP1})
    assert header(root) == 4


def test_pi5_kernel_6_6_gpiochip0_with_a_gpiochip4_link(tmp_path: Path) -> None:
    """From 6.6.45 (raspberrypi/linux#6144): RP1 is gpiochip0, the SoC's chips from 10, and a
    gpiochip4 -> gpiochip0 link for old code; the link is the same chip, counted once."""
    root = fake_tree(tmp_path, {0: RP1, 10: BRCMSTB, 11: BRCMSTB, 12: BRCMSTB, 13: BRCMSTB},
                     links={4: 0})
    assert chip_numbers(root / "dev") == [0, 10, 11, 12, 13]
    assert header(root) == 0


@pytest.mark.parametrize("rp1", [11, 12, 13, 14, 15])
def test_pi5_kernel_6_12_without_gpiochip0(tmp_path: Path, rp1: int) -> None:
    """The 6.12 reports (Adafruit_Blinka#1119, pironman5#95) list only gpiochip11-15 and do
    not say which is RP1: wherever it is, its label finds it."""
    chips = dict.fromkeys(range(11, 16), BRCMSTB)
    chips[rp1] = RP1
    assert header(fake_tree(tmp_path, chips)) == rp1


def test_no_header_chip(tmp_path: Path) -> None:
    assert header(fake_tree(tmp_path, {0: BRCMSTB, 1: FIRMWARE})) is None  # not a Pi header
    assert find_header_chip(tmp_path / "absent", tmp_path / "absent") is None
    dangling = fake_tree(tmp_path / "dangling", {}, links={4: 0})  # a link to nothing
    assert chip_numbers(dangling / "dev") == [] and header(dangling) is None


def test_the_kernel_struct_and_request_number(tmp_path: Path) -> None:
    # _IOR(0xB4, 0x01, struct gpiochip_info): direction read (2) << 30, size << 16, type << 8, nr
    assert GPIO_GET_CHIPINFO_IOCTL == (2 << 30) | (68 << 16) | (0xB4 << 8) | 0x01
    info = struct.pack("<32s32sI", b"gpiochip0", b"pinctrl-rp1", 54)
    assert parse_chip_info(info) == ("gpiochip0", "pinctrl-rp1", 54)
    calls: list[int] = []

    def ioctl(fd: int, request: int, buf: bytearray, mutate: bool) -> int:
        calls.append(request)
        buf[:] = info
        return 0

    chip = tmp_path / "gpiochip0"
    chip.touch()
    assert chip_label_ioctl(chip, ioctl) == "pinctrl-rp1"
    assert calls == [GPIO_GET_CHIPINFO_IOCTL]


def test_the_ioctl_on_something_not_a_chip_is_no_label(tmp_path: Path) -> None:
    """The real ioctl on a plain file fails (ENOTTY) and on no file at all: no label, no
    exception; the label then comes from sysfs."""
    root = fake_tree(tmp_path, {4: RP1})
    assert chip_label_ioctl(root / "dev/gpiochip4") is None
    assert chip_label_ioctl(root / "dev/gpiochip9") is None
    assert header(root) == 4


def test_the_chip_s_own_label_comes_first(tmp_path: Path) -> None:
    """Where the chip answers the ioctl, its label counts, not sysfs's."""
    root = fake_tree(tmp_path, {0: BCM2711, 1: FIRMWARE})

    def ioctl(fd: int, request: int, buf: bytearray, mutate: bool) -> int:
        label = b"pinctrl-bcm2711" if fd_path(fd).endswith("gpiochip1") else b"other"
        buf[32:32 + len(label)] = label
        return 0

    assert find_header_chip(root / "dev", root / "sys", ioctl) == 1


def fd_path(fd: int) -> str:
    return str(Path(f"/proc/self/fd/{fd}").readlink())


def finder(root: Path, wait_s: float = 0.0, labels: dict[str, str] | None = None
           ) -> ChipFinder:
    """The fake tree's chips on an injected clock: labelled by the kernel's ioctl as
    ``labels`` says (by the file a link names), else by sysfs (the ioctl fails on plain files)."""
    now = [0.0]

    def ioctl(fd: int, request: int, buf: bytearray, mutate: bool) -> int:
        name = Path(os.readlink(f"/proc/self/fd/{fd}")).name
        if labels is None or name not in labels:
            raise OSError(25, "Inappropriate ioctl for device")
        buf[32:32 + len(labels[name])] = labels[name].encode()
        return 0

    return ChipFinder(dev=root / "dev", sys=root / "sys", wait_s=wait_s, ioctl=ioctl,
                      sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0])


def test_a_chip_setting_naming_another_chip_is_refused_with_the_header_s_number(
        tmp_path: Path) -> None:
    """``[gpio] chip = 1`` on a Pi 4 is the firmware's expander (8 lines): the matrix's claim
    failed with lgpio's bare error. Now the setting is refused, naming the header's chip."""
    root = fake_tree(tmp_path, {0: BCM2711, 1: FIRMWARE})
    labels = {"gpiochip0": "pinctrl-bcm2711", "gpiochip1": "raspberrypi-exp-gpio"}
    with pytest.raises(WrongChip) as err:
        finder(root, labels=labels).locate(GpioConfig(chip=1), "Raspberry Pi 4 Model B Rev 1.4")
    assert str(err.value) == ("[gpio] chip = 1 is raspberrypi-exp-gpio, not the 40-pin "
                              "header's (pinctrl-rp1 / pinctrl-bcm2711 / pinctrl-bcm2835), "
                              "which is gpiochip0: set chip = -1 in [gpio] (found by its label)")
    assert finder(root, labels=labels).locate(GpioConfig(chip=0), "Raspberry Pi 4") == 0
    assert finder(root).locate(GpioConfig(chip=1), "Raspberry Pi 4") == 1  # label unknown


def test_the_old_pi5_advice_chip_4_on_each_kernel(tmp_path: Path) -> None:
    """``chip = 4`` (the Pi 5's header before 6.6.45): still right through 6.6's link; on a
    6.12 kernel without gpiochip4 it is a wrong setting, not a chip still on its way: the
    service stopped on "no gpiochip4" was started again every 17 s for ever."""
    old = fake_tree(tmp_path / "6.1", {0: BRCMSTB, 1: BRCMSTB, 2: BRCMSTB, 3: BRCMSTB, 4: RP1})
    assert finder(old).locate(GpioConfig(chip=4), "Raspberry Pi 5") == 4
    linked = fake_tree(tmp_path / "6.6", {0: RP1, 10: BRCMSTB, 11: BRCMSTB}, links={4: 0})
    assert finder(linked).locate(GpioConfig(chip=4), "Raspberry Pi 5") == 4
    by_ioctl = {"gpiochip0": "pinctrl-rp1", "gpiochip10": "gpio-brcmstb@107d508500"}
    assert finder(linked, labels=by_ioctl).locate(GpioConfig(chip=4), "Raspberry Pi 5") == 4
    new = fake_tree(tmp_path / "6.12", {11: BRCMSTB, 12: BRCMSTB, 13: RP1, 14: BRCMSTB})
    with pytest.raises(WrongChip) as err:
        finder(new, wait_s=15.0).locate(GpioConfig(chip=4), "Raspberry Pi 5")
    assert not isinstance(err.value, ChipNotFound)
    assert str(err.value).endswith("/dev/gpiochip4 ([gpio] chip) after 15 s, which is "
                                   "gpiochip13: set chip = -1 in [gpio] (found by its label)")
    # No header chip anywhere yet (RP1 behind PCIe still coming up): waited for, retried.
    empty = fake_tree(tmp_path / "boot", {11: BRCMSTB})
    with pytest.raises(ChipNotFound):
        finder(empty, wait_s=15.0).locate(GpioConfig(chip=4), "Raspberry Pi 5")


def test_a_chip_this_user_may_not_open_yet_is_waited_for(tmp_path: Path) -> None:
    """At boot, before udev has given /dev/gpiochip0 to the gpio group (root:root 0600), the
    chip's label is read from sysfs and lgpio's open failed with its bare "can not open
    gpiochip": a Pi 5 then had no backend at all (status 69, never restarted). The wait now
    opens the chip as lgpio will, and a refusal is a chip not ready yet: here a real file
    whose mode the test opens to its user 10 s in, on the injected clock."""
    with shared_folder() as folder, unprivileged_files():
        root = fake_tree(folder, {0: RP1, 10: BRCMSTB})
        chip = root / "dev/gpiochip0"
        chip.chmod(0o000)
        now = [0.0]

        def sleep(seconds: float) -> None:
            now[0] += seconds
            if now[0] >= 10.0:
                chip.chmod(0o660)  # udev's rule: root:gpio 0660

        waiting = ChipFinder(dev=root / "dev", sys=root / "sys", wait_s=15.0, sleep=sleep,
                             clock=lambda: now[0])
        assert waiting.locate(GpioConfig(), "Raspberry Pi 5 Model B Rev 1.0") == 0
        assert now[0] == 10.0

        chip.chmod(0o000)  # never opened to this user: one line naming the gpio group
        now[0] = 0.0
        never = ChipFinder(dev=root / "dev", sys=root / "sys", wait_s=15.0,
                           sleep=lambda s: now.__setitem__(0, now[0] + s), clock=lambda: now[0])
        with pytest.raises(ChipNotPermitted) as err:
            never.locate(GpioConfig(), "Raspberry Pi 5 Model B Rev 1.0")
        owner = f"{pwd.getpwuid(chip.stat().st_uid)[0]}:{grp.getgrgid(chip.stat().st_gid)[0]}"
        user = pwd.getpwuid(os.geteuid())[0]  # the process's (as root: its files' nobody)
    assert isinstance(err.value, ChipNotReady) and not isinstance(err.value, ChipNotFound)
    assert now[0] == 15.0
    assert str(err.value) == (f"{chip} is there, but user {user} may not open it ({owner} 0000, "
                              "Permission denied) after 15 s: it must belong to group gpio "
                              f"(udev gives it at boot: 99-boardctl.rules) and user {user} "
                              "be in gpio")
