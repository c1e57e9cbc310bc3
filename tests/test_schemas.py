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


@pytest.mark.quick
def test_a_plain_column_is_written_without_a_dictionary(spark, tmp_path):
    """``plain_columns`` (the documents' text) reach Parquet's writer: no dictionary page for them,
    the others keep theirs; an undeclared plain column is a schema error."""
    import pyarrow.parquet as pq

    from crawlplan.storage import write_dataset

    schema = load_schema("documents")
    assert schema.plain_columns == ("text",)
    row = {c.name: None for c in schema.columns}
    rows = [dict(row, record_id=f"<urn:{i}>", url=f"https://a.example/{i}", host="a.example",
                 surt_host_name="example,a", rev_host="example.a", warc_file="f.warc.gz", offset=i,
                 text=f"distinct text number {i} " * 20, text_length=1, extractor="resiliparse") for i in range(50)]
    df = spark.createDataFrame(rows, schema.struct())
    assert write_dataset(df, "documents", str(tmp_path)) == 50
    part = next((tmp_path / "documents").glob("*.parquet"))
    meta = pq.ParquetFile(part).metadata.row_group(0)
    by_name = {meta.column(i).path_in_schema: meta.column(i) for i in range(meta.num_columns)}
    assert not by_name["text"].has_dictionary_page
    assert by_name["host"].has_dictionary_page
    with pytest.raises(SchemaError, match="plain column 'nope'"):
        schema_from_dict({"dataset": "x", "columns": [{"name": "a", "type": "string"}], "plain_columns": ["nope"]})
