"""This package's public face, read by lazy_loader at run time and by mypy.

See docs/design/startup.md.
"""

from .batch.api import batch_provider as batch_provider
from .batch.transport import (
    BatchCoordinator as BatchCoordinator,
)
from .batch.transport import (
    BatchSettings as BatchSettings,
)
from .batch.transport import (
    batch_enabled as batch_enabled,
)
from .cache import CallCache as CallCache
from .cache import cache_path as cache_path
from .cache_admin import (
    cache_info as cache_info,
)
from .cache_admin import (
    clear_cache as clear_cache,
)
from .cache_admin import (
    parse_duration as parse_duration,
)
from .cache_admin import (
    prune_cache as prune_cache,
)
from .judge import Judge as Judge
from .judge import build_judges as build_judges
from .policy.breaker import JudgeUnavailable as JudgeUnavailable
from .policy.failures import JudgeAuthError as JudgeAuthError
from .policy.failures import JudgeFailure as JudgeFailure
from .policy.kinds import FailureKind as FailureKind
from .policy.preflight import check_judges as check_judges
from .policy.preflight import print_warnings as print_warnings
from .policy.providers import sent_params as sent_params
from .policy.retry import RetryPolicy as RetryPolicy
from .policy.routing import route_problem as route_problem
from .policy.spend import BudgetReached as BudgetReached
from .policy.spend import check_priced as check_priced
from .prompt_caching import caching_kind as caching_kind
from .request import Completion as Completion
from .request import VoteRequest as VoteRequest
from .stats import CallStats as CallStats
from .transports.choice import describe_transport as describe_transport
from .transports.direct import close_clients as close_clients
from .transports.litellm import load_litellm as load_litellm
from .transports.simulated import (
    is_simulated as is_simulated,
)
from .transports.simulated import (
    simulated_run as simulated_run,
)
from .transports.simulated import (
    simulation_params as simulation_params,
)
from .transports.workers import (
    WorkerPool as WorkerPool,
)
from .transports.workers import (
    WorkerPoolFailed as WorkerPoolFailed,
)
from .transports.workers import (
    cores as cores,
)
