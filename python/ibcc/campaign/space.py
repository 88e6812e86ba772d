"""The spaces a campaign explores, checked before anything runs.

- A sweep's grid: axes KEY=V1,V2,... or KEY=FROM:TO:STEP, crossed in order (the first axis
  varies slowest).
- A tune's space: Optuna parameters KEY=LO:HI[:int][:log] or KEY=V1,V2,..., checked against
  the key schema of `ibcc keys --json-schema` (ranges, enums, quantities with units).
"""
import math
from dataclasses import dataclass, field

from .errors import CampaignError

# Points one sweep may hold (each a directory and a process): more is a mistake in a grid.
MAX_POINTS = 100000
# Values FROM:TO:STEP may make on one axis.
MAX_STEPS = 10000


@dataclass
class Axis:
    key: str
    values: list


def parse_axis(g):
    """--grid KEY=V1,V2,... or KEY=FROM:TO:STEP (numbers; FROM and TO included)."""
    key, eq, spec = g.partition("=")
    if not eq or not key or not spec:
        raise CampaignError(f"--grid {g}: expected KEY=V1,V2,... or KEY=FROM:TO:STEP")
    parts = spec.split(":")
    if len(parts) == 3 and "," not in spec:
        try:
            a, b, step = (float(p) for p in parts)
        except ValueError:
            raise CampaignError(f"--grid {g}: FROM:TO:STEP must be numbers") from None
        if not all(math.isfinite(x) for x in (a, b, step)):
            raise CampaignError(f"--grid {g}: FROM:TO:STEP must be finite numbers")
        if step <= 0 or b < a or (b - a) / step > MAX_STEPS:
            raise CampaignError(f"--grid {g}: expected FROM <= TO and 0 < STEP, at most {MAX_STEPS} values")
        count = math.floor((b - a) / step + 1e-9) + 1
        integral = a.is_integer() and step.is_integer()
        if integral and max(abs(a), abs(b)) > 2.0 ** 53:
            raise CampaignError(f"--grid {g}: integers beyond 2^53 cannot be stepped exactly; list the values instead")
        values = []
        for i in range(count):
            v = a + i * step
            values.append(str(round(v)) if integral else f"{v:g}")
            if len(values) > 1 and values[-1] == values[-2]:
                raise CampaignError(f"--grid {g}: STEP is too small to change {values[-1]}; list the values instead")
        return Axis(key, values)
    values = spec.split(",")
    if any(not v for v in values):
        raise CampaignError(f"--grid {g}: an empty value")
    return Axis(key, values)


def parse_grid(specs):
    """The axes of --grid options, each key once, their cross product at most MAX_POINTS."""
    if not specs:
        raise CampaignError("at least one --grid KEY=VALUES is needed")
    axes = []
    for g in specs:
        axes.append(parse_axis(g))
        if sum(1 for x in axes if x.key == axes[-1].key) > 1:
            raise CampaignError(f"--grid {axes[-1].key} is given twice")
    total = math.prod(len(x.values) for x in axes)
    if total > MAX_POINTS:
        raise CampaignError(f"the grids make {total} points; a sweep runs at most {MAX_POINTS} (split it into several)")
    return axes


def grid_points(axes):
    """The cross product: per point a list of (key, value), the first axis varying slowest."""
    points = [[]]
    for axis in axes:
        points = [p + [(axis.key, v)] for p in points for v in axis.values]
    return points


def parse_quantity(text, units):
    """(value, unit) of a quantity such as '55us', given the key's units ({suffix: scale}, the
    schema's "x-units"); None if it is not one. A bare number is taken for a unit of scale 1
    where the key allows it (a size in bytes: `bare`)."""
    t = text.strip()
    for unit in sorted(units, key=len, reverse=True):
        if t.endswith(unit):
            num = t[:-len(unit)].strip()
            break
    else:
        return None
    try:
        v = float(num)
    except ValueError:
        return None
    if not math.isfinite(v) or v < 0:
        return None
    return v, unit


@dataclass
class Param:
    key: str
    kind: str                 # "int", "float" or "categorical"
    low: float = 0.0
    high: float = 0.0
    log: bool = False
    choices: list = field(default_factory=list)
    unit: str = ""            # a quantity's unit: the values are numbers of it ("" for plain numbers)
    quantity: str = ""        # the schema's x-quantity: "time", "rate", "size" ("" for plain numbers)

    def spec(self):
        if self.kind == "categorical":
            return f"{self.key}={','.join(self.choices)}"
        mods = (":int" if self.kind == "int" else "") + (":log" if self.log else "")
        return f"{self.key}={fmt_num(self.low)}{self.unit}:{fmt_num(self.high)}{self.unit}{mods}"

    def distribution(self):
        import optuna
        if self.kind == "categorical":
            return optuna.distributions.CategoricalDistribution(self.choices)
        if self.kind == "int":
            return optuna.distributions.IntDistribution(int(self.low), int(self.high), log=self.log)
        return optuna.distributions.FloatDistribution(self.low, self.high, log=self.log)

    def column(self):
        """The parameter's column in tune.csv and pareto.csv (a quantity's unit in brackets)."""
        unit = self.unit or ("B" if self.quantity == "size" else "")
        return f"{self.key} [{unit}]" if unit else self.key

    def value_text(self, v):
        if self.kind == "int":
            return f"{int(v)}{self.unit}"
        if self.kind == "float":
            # A quantity as its unit's number to 6 significant digits (the reader rounds a
            # time to ps anyway); a plain number exactly.
            return f"{float(v):.6g}{self.unit}" if self.unit else repr(float(v))
        return str(v)


def fmt_num(v):
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def schema_node(schema, key):
    """The JSON Schema node of a dotted scenario key (lists as key[N]); None if unknown."""
    node = schema
    for part in key.split("."):
        index = None
        if "[" in part:
            part, rest = part.split("[", 1)
            index = rest.rstrip("]")
        node = _object_child(node, part)
        if node is None:
            return None
        if index is not None:
            node = _list_items(node)
            if node is None:
                return None
    return node


def _object_child(node, name):
    for alt in [node] + node.get("anyOf", []):
        props = alt.get("properties")
        if props and name in props:
            return props[name]
    return None


def _list_items(node):
    for alt in [node] + node.get("anyOf", []):
        if alt.get("type") == "array" and "items" in alt:
            return alt["items"]
    return None


def _leaf_kinds(node):
    """(numeric alternative or None, enum values or None, quantity alternative or None) of a
    leaf node. A quantity (time, rate, size) is a string alternative with "x-quantity" and
    "x-units" (its units and their scales, from the key table)."""
    numeric, enum, quantity = None, None, None
    for alt in [node] + node.get("anyOf", []):
        if alt.get("type") in ("integer", "number"):
            numeric = numeric or alt
        if "enum" in alt:
            enum = enum or [str(v) for v in alt["enum"]]
        if alt.get("type") == "boolean":
            enum = enum or ["true", "false"]
        if "x-units" in alt:
            quantity = quantity or alt
    return numeric, enum, quantity


def parse_space(specs, schema):
    """--space KEY=LO:HI[:int][:log] (numeric) or KEY=V1,V2,... (categorical)."""
    params, seen = [], set()
    for spec in specs:
        where = f"--space {spec}"
        key, eq, rhs = spec.partition("=")
        key = key.strip()
        if not eq or not key or not rhs:
            raise CampaignError(f"{where}: expected KEY=LO:HI[:int][:log] or KEY=V1,V2,...")
        if key in seen:
            raise CampaignError(f"{where}: {key} is given twice")
        seen.add(key)
        node = schema_node(schema, key)
        if node is None:
            raise CampaignError(f"{where}: {key} is not a scenario key (ibcc keys lists them)")
        numeric, enum, quantity = _leaf_kinds(node)
        if "," in rhs or (":" not in rhs):
            choices = [c.strip() for c in rhs.split(",")]
            if len(choices) < 2 or any(not c for c in choices) or len(set(choices)) != len(choices):
                raise CampaignError(f"{where}: a categorical parameter needs two or more distinct values")
            if enum is not None:
                bad = [c for c in choices if c not in enum]
                if bad:
                    raise CampaignError(f"{where}: {', '.join(bad)} not allowed for {key}; expected one of {', '.join(enum)}")
            elif quantity is not None:
                for c in choices:
                    _check_quantity(where, key, c, quantity, numeric)
            elif numeric is None:
                raise CampaignError(f"{where}: {key} is not a number or a choice (a map or list cannot be tuned)")
            else:
                for c in choices:
                    _check_number(where, key, c, numeric)
            params.append(Param(key, "categorical", choices=choices))
            continue
        parts = rhs.split(":")
        mods = parts[2:]
        if len(parts) < 2 or any(m not in ("int", "log") for m in mods) or len(set(mods)) != len(mods):
            raise CampaignError(f"{where}: expected KEY=LO:HI with optional :int and :log")
        unit = ""
        if quantity is not None:
            # LO and HI in the key's units (a size also in bytes): tuned as numbers of LO's unit.
            scales = quantity["x-units"]
            (lo, unit), (hi, hi_unit) = (_check_quantity(where, key, x, quantity, numeric) for x in parts[:2])
            hi = hi * scales[hi_unit] / scales[unit]
            if quantity["x-quantity"] == "size":  # whole bytes: tuned in bytes
                lo, hi = lo * scales[unit], hi * scales[unit]
                unit = ""
                if not (float(lo).is_integer() and float(hi).is_integer()):
                    raise CampaignError(f"{where}: a size is a whole number of bytes; got {parts[0]} and {parts[1]}")
                mods = mods + ["int"]
        elif numeric is None:
            what = f"one of {', '.join(enum)}" if enum else "not a number"
            raise CampaignError(f"{where}: {key} is {what}; give its values as KEY=V1,V2,...")
        else:
            lo = _check_number(where, key, parts[0], numeric)
            hi = _check_number(where, key, parts[1], numeric)
        if not lo < hi:
            raise CampaignError(f"{where}: expected LO < HI, got {parts[0]} and {parts[1]}")
        integer = (numeric is not None and numeric.get("type") == "integer") or "int" in mods
        if integer and not (float(lo).is_integer() and float(hi).is_integer()):
            raise CampaignError(f"{where}: {key} is an integer; LO and HI must be integers")
        log = "log" in mods
        if log and lo <= 0:
            raise CampaignError(f"{where}: a :log range must start above 0, got {parts[0]}")
        params.append(Param(key, "int" if integer else "float", lo, hi, log, unit=unit,
                            quantity=quantity["x-quantity"] if quantity else ""))
    if not params:
        raise CampaignError("--space: at least one parameter is needed")
    return params


def _check_quantity(where, key, text, quantity, numeric):
    """(value, unit) of a quantity LO, HI or choice (`quantity`: the key's schema alternative),
    in the key's range where it declares one (a size's, in bytes)."""
    kind, units = quantity["x-quantity"], quantity["x-units"]
    q = parse_quantity(text, units)
    if q is None and numeric is not None:  # a bare number where the key takes one (bytes)
        try:
            q = (float(text), next(u for u, scale in units.items() if scale == 1))
        except (ValueError, StopIteration):
            q = None
    if q is None:
        bare = " or a number of bytes" if numeric is not None else ""
        raise CampaignError(f"{where}: '{text}' is not a {kind} for {key}; expected a number with a unit "
                        f"({', '.join(units)}){bare}")
    if numeric is not None:  # sizes declare their range in bytes
        _check_number(where, key, fmt_num(q[0] * units[q[1]]), numeric)
    return q


def _check_number(where, key, text, numeric):
    try:
        v = float(text)
    except ValueError:
        raise CampaignError(f"{where}: '{text}' is not a number") from None
    if not math.isfinite(v):
        raise CampaignError(f"{where}: '{text}' is not a finite number")
    lo, hi = numeric.get("minimum"), numeric.get("maximum")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise CampaignError(f"{where}: {text} is outside {key}'s range {fmt_num(lo)}..{fmt_num(hi)}")
    return v
