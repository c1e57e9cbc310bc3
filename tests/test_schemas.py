import pytest
from pyspark.sql import types as T

from crawlplan.paths import resource_dir
from crawlplan.schemas import SchemaError, check_schema, load_schema, parse_type, schema_from_dict


def test_every_schema_file_parses():
    files = sorted(resource_dir("schemas").glob("*.yaml"))
    assert files
    for path in files:
        schema = load_schema(path.stem)
        assert schema.columns, path


def test_type_language():
    assert parse_type("map<string,long>") == T.MapType(T.StringType(), T.LongType(), True)
    assert parse_type("array<struct<a:int,b:array<string>>>") == T.ArrayType(
        T.StructType([T.StructField("a", T.IntegerType()), T.StructField("b", T.ArrayType(T.StringType()))]))
    with pytest.raises(SchemaError):
        parse_type("decimal(10,2)x")


def test_check_schema_names_the_column():
    schema = schema_from_dict({"dataset": "t", "columns": [{"name": "a", "type": "long"},
                                                           {"name": "b", "type": "string"}]})
    good = T.StructType([T.StructField("a", T.LongType()), T.StructField("b", T.StringType())])
    check_schema(good, schema)
    with pytest.raises(SchemaError, match="column 'a' has type int"):
        check_schema(T.StructType([T.StructField("a", T.IntegerType()), T.StructField("b", T.StringType())]),
                     schema)
    with pytest.raises(SchemaError, match="column 'b' is missing"):
        check_schema(T.StructType([T.StructField("a", T.LongType())]), schema)
    with pytest.raises(SchemaError, match="column 'c' is not in the schema"):
        check_schema(T.StructType(good.fields + [T.StructField("c", T.LongType())]), schema)
