"""The simulated twins of the board's parts, apart from the real drivers (as gpiozero keeps
its ``pins/mock.py``): each part's real driver runs on its twin unchanged, and nothing in
``hw``'s real drivers imports from here; the assembler (``boardctl.service.hardware``,
``hw.assemble``) chooses.

- :mod:`hw.mock.matrix`: the reed matrix as a diode matrix on gpiozero's MockFactory pins
  (``SimulatedBoard``), and lgpio's group calls over it (``SimulatedChip``);
- :mod:`hw.mock.faces`: HT16K33 chips on a recording I2C bus (``RecordingI2C``) and faces on it;
- :mod:`hw.mock.leds`: the real ``PixelBuf`` recording the frames it would send;
- :mod:`hw.mock.buzzer`: a buzzer that keeps what it sounded.
"""
