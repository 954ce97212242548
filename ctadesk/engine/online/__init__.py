"""On-line CTA (Castro & González 2011 §4): tables requested one after another from one data set,
each protected at once and consistently with the tables published before, by a two-stage
method.  The first stage sets the parameters of a table's CTA model and the protection senses of
its sensitive cells; the second solves the model with those senses fixed, a continuous LP, with
soft constraints where nothing else gives a table.  What a server keeps between tables (the
senses and values published, the secret) and how it is asked are ctadesk.app.online's.

problem.py       first stage (i): the table's CTA problem, levels widened by secret keyed factors
widening.py      those factors, and safe values kept off the rules' shares
senses.py        first stage (ii): senses for the cells a table shows for the first time
second_stage.py  second stage: the fixed-sense LP with published values held, soft when needed
relaxation.py    what a second-stage table gave up, in the table's terms; senses crossed
grid.py          a table put at the data's decimals
"""

from ctadesk.engine.online.grid import on_grid
from ctadesk.engine.online.problem import table_problem
from ctadesk.engine.online.relaxation import Relaxation, Shortfall, crossed_sides
from ctadesk.engine.online.second_stage import aimed_at_pins, held, pinned, plain_cells, second_stage
from ctadesk.engine.online.senses import full_table_senses, local_senses, one_sided, table_senses
from ctadesk.engine.online.widening import keyed_factors, keyed_shares, off_rule_shares, rule_shares, widened_for_keys
from ctadesk.engine.settings import SENSE_CHOICES

__all__ = ["SENSE_CHOICES", "Relaxation", "Shortfall", "aimed_at_pins", "crossed_sides", "full_table_senses", "held",
           "keyed_factors", "keyed_shares", "local_senses", "off_rule_shares", "on_grid", "one_sided", "pinned",
           "plain_cells", "rule_shares", "second_stage", "table_problem", "table_senses", "widened_for_keys"]
