"""This package's public face, read by lazy_loader at run time and by mypy.

See docs/design/startup.md.
"""

from .analysis import validate_collected as validate_collected
from .loader import read_fc_matrix as read_fc_matrix
from .loader import validate_experiment as validate_experiment
from .performance import (
    METRICS as METRICS,
)
from .performance import (
    RANKED as RANKED,
)
from .performance import (
    Downstream as Downstream,
)
from .performance import (
    judge_performance as judge_performance,
)
from .settings import ValidateSettings as ValidateSettings
from .settings import split_labels as split_labels
from .settings import split_numbers as split_numbers
from .simulate_files import HumanElicitation as HumanElicitation
from .simulate_files import JudgeElicitation as JudgeElicitation
from .simulate_files import write_simulation as write_simulation
from .synthetic import SimulationConfig as SimulationConfig
from .synthetic import simulate_world as simulate_world
