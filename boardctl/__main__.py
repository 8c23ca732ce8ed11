import sys

from boardctl.cli import main

sys.exit(main())
