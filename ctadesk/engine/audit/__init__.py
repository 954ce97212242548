"""Disclosure audit of a released table (issue 13): for every sensitive cell, the interval of
original values an attacker cannot rule out, and whether it protects the cell.

    from ctadesk.engine.audit import Release, AttackerKnowledge, Capacity, audit
    result = audit(problem, Release.adjusted(adjusted_values),
                   AttackerKnowledge(capacity=Capacity("rel", 0.2)))
    print(result.summary())
"""

from ctadesk.engine.audit.audit import AuditOptions, audit
from ctadesk.engine.audit.ends import AuditCancelled
from ctadesk.engine.audit.knowledge import APriori, AttackerKnowledge, Capacity, CapacityKind, Release
from ctadesk.engine.audit.result import FAILURES, AuditResult

__all__ = ["FAILURES", "APriori", "AttackerKnowledge", "AuditCancelled", "AuditOptions", "AuditResult", "Capacity",
           "CapacityKind", "Release", "audit"]
