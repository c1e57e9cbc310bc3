"""Dataset schemas: one YAML file per dataset under ``schemas/``.

A schema file lists columns with a Spark SQL type and nullability. Every write is checked
against it (names, types, nullability) and every read of a declared dataset selects exactly
these columns, so jobs agree on contracts without sharing code.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from pyspark.sql import types as T

from crawlplan.conf import load_yaml
from crawlplan.paths import resource_dir

_PRIMITIVES: dict[str, T.DataType] = {
    "string": T.StringType(),
    "boolean": T.BooleanType(),
    "byte": T.ByteType(),
    "tinyint": T.ByteType(),
    "short": T.ShortType(),
    "smallint": T.ShortType(),
    "int": T.IntegerType(),
    "integer": T.IntegerType(),
    "long": T.LongType(),
    "bigint": T.LongType(),
    "float": T.FloatType(),
    "double": T.DoubleType(),
    "binary": T.BinaryType(),
    "date": T.DateType(),
    "timestamp": T.TimestampType(),
}


class SchemaError(ValueError):
    pass


def _split_top(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return parts


def parse_type(text: str) -> T.DataType:
    """Parse the small type language of schema files: primitives, array<>, map<,>, struct<a:t,...>."""
    text = text.strip()
    low = text.lower()
    if low in _PRIMITIVES:
        return _PRIMITIVES[low]
    match = re.fullmatch(r"(array|map|struct)<(.*)>", text, flags=re.IGNORECASE | re.DOTALL)
    if not match:
        raise SchemaError(f"unknown type '{text}'")
    kind, inner = match.group(1).lower(), match.group(2)
    if kind == "array":
        return T.ArrayType(parse_type(inner), True)
    if kind == "map":
        key, value = _split_top(inner)
        return T.MapType(parse_type(key), parse_type(value), True)
    fields = []
    for part in _split_top(inner):
        name, _, ftype = part.partition(":")
        fields.append(T.StructField(name.strip(), parse_type(ftype), True))
    return T.StructType(fields)


@dataclass(frozen=True)
class Column:
    name: str
    type: T.DataType
    nullable: bool
    doc: str = ""


@dataclass(frozen=True)
class DatasetSchema:
    name: str
    columns: tuple[Column, ...]
    partition_by: tuple[str, ...] = ()
    description: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    def struct(self) -> T.StructType:
        return T.StructType([T.StructField(c.name, c.type, c.nullable) for c in self.columns])


def _strip_nullability(dtype: T.DataType) -> T.DataType:
    """Nested nullability is Spark's business; only top-level nullability is a contract."""
    if isinstance(dtype, T.ArrayType):
        return T.ArrayType(_strip_nullability(dtype.elementType), True)
    if isinstance(dtype, T.MapType):
        return T.MapType(_strip_nullability(dtype.keyType), _strip_nullability(dtype.valueType), True)
    if isinstance(dtype, T.StructType):
        return T.StructType([T.StructField(f.name, _strip_nullability(f.dataType), True) for f in dtype.fields])
    return dtype


def schema_from_dict(data: dict, where: str = "<dict>") -> DatasetSchema:
    try:
        columns = tuple(
            Column(
                name=str(col["name"]),
                type=parse_type(str(col["type"])),
                nullable=bool(col.get("nullable", True)),
                doc=str(col.get("doc", "")),
            )
            for col in data["columns"]
        )
    except (KeyError, TypeError) as exc:
        raise SchemaError(f"schema {where} is malformed: {exc}") from None
    except SchemaError as exc:
        raise SchemaError(f"schema {where}: {exc}") from None
    names = [c.name for c in columns]
    if len(set(names)) != len(names):
        raise SchemaError(f"schema {where} declares a column twice")
    part = tuple(data.get("partition_by") or ())
    for p in part:
        if p not in names:
            raise SchemaError(f"schema {where}: partition column '{p}' is not a declared column")
    return DatasetSchema(
        name=str(data.get("dataset", where)),
        columns=columns,
        partition_by=part,
        description=str(data.get("description", "")),
    )


@functools.cache
def load_schema(dataset: str, schema_dir: str | None = None) -> DatasetSchema:
    base = Path(schema_dir) if schema_dir else resource_dir("schemas")
    path = base / f"{dataset}.yaml"
    if not path.is_file():
        raise SchemaError(f"no schema for dataset '{dataset}': expected {path}")
    return schema_from_dict(load_yaml(path), where=str(path))


def check_schema(actual: T.StructType, schema: DatasetSchema, *, context: str = "") -> None:
    """Raise naming the first offending column; nullability is checked on data at write time."""
    where = f" ({context})" if context else ""
    actual_fields = {f.name: f for f in actual.fields}
    for col in schema.columns:
        got = actual_fields.get(col.name)
        if got is None:
            raise SchemaError(f"dataset '{schema.name}'{where}: column '{col.name}' is missing")
        if _strip_nullability(got.dataType) != _strip_nullability(col.type):
            raise SchemaError(
                f"dataset '{schema.name}'{where}: column '{col.name}' has type "
                f"{got.dataType.simpleString()}, schema says {col.type.simpleString()}"
            )
    extra = [n for n in actual_fields if n not in {c.name for c in schema.columns}]
    if extra:
        raise SchemaError(f"dataset '{schema.name}'{where}: column '{extra[0]}' is not in the schema")
