import pytest

from crawlplan.conf import ConfError, load_conf, merge, parse_override


def test_layers_apply_in_order(tmp_path):
    user = tmp_path / "user.yaml"
    user.write_text("extract:\n  extractor: resiliparse\n  timeout_s: 5\n")
    conf = load_conf("local", user, ["extract.timeout_s=7", "spark.shuffle_partitions=3"])
    assert conf["extract"]["extractor"] == "resiliparse"
    assert conf["extract"]["timeout_s"] == 7
    assert conf["spark"]["shuffle_partitions"] == 3
    assert conf["extract"]["reader"] == "warcio"


def test_unknown_keys_are_errors_naming_the_key(tmp_path):
    with pytest.raises(ConfError, match="extract.extractr"):
        load_conf("local", overrides=["extract.extractr=x"])
    user = tmp_path / "u.yaml"
    user.write_text("sparkk: {}\n")
    with pytest.raises(ConfError, match="'sparkk'"):
        load_conf("local", user)


def test_cluster_profile_and_unknown_profile():
    assert load_conf("cluster")["spark"]["shuffle_partitions"] == 2000
    with pytest.raises(ConfError, match="unknown profile"):
        load_conf("nope")


def test_open_mappings_accept_any_key():
    conf = load_conf("local", overrides=["spark.conf.spark.executor.memory=8g"])
    assert conf["spark"]["conf"]["spark.executor.memory"] == "8g"


def test_safe_loading_refuses_python_tags(tmp_path):
    evil = tmp_path / "evil.yaml"
    evil.write_text("run: !!python/object/apply:os.system ['echo hacked']\n")
    with pytest.raises(ConfError):
        load_conf("local", evil)


def test_override_parsing():
    assert parse_override("a.b=3") == (["a", "b"], 3)
    assert parse_override("a=[x, y]") == (["a"], ["x", "y"])
    with pytest.raises(ConfError):
        parse_override("novalue")


def test_section_cannot_become_scalar():
    with pytest.raises(ConfError, match="is a section"):
        merge({"a": {"b": 1}}, {"a": 5}, where="t")


def test_set_types_a_value_by_its_default():
    """Issue 31: YAML 1.1 reads ``off`` as False; a string setting keeps the text, numbers and
    booleans are parsed strictly with the key named."""
    conf = load_conf("local", overrides=["source.sitemaps.target_url=off", "extract.extractor=yes"])
    assert conf["source"]["sitemaps"]["target_url"] == "off" and conf["extract"]["extractor"] == "yes"
    conf = load_conf("local", overrides=["extract.timeout_s=7", "spark.shuffle_partitions=1e1"])
    assert conf["extract"]["timeout_s"] == 7 and conf["spark"]["shuffle_partitions"] == 10.0
    with pytest.raises(ConfError, match="'extract.timeout_s' is a number"):
        load_conf("local", overrides=["extract.timeout_s=seven"])


def test_a_mistyped_boolean_is_an_error_naming_the_key():
    from crawlplan.conf import typed_override

    assert typed_override("a.flag", "off", True) is False and typed_override("a.flag", "Yes", False) is True
    with pytest.raises(ConfError, match="'a.flag' is a boolean"):
        typed_override("a.flag", "ture", False)
    assert typed_override("a.name", "null", "x") == "null" and typed_override("a.list", "[1, 2]", []) == [1, 2]


def test_an_unknown_key_suggests_the_close_one():
    with pytest.raises(ConfError, match="did you mean 'extract.extractor'"):
        load_conf("local", overrides=["extract.extractr=x"])


@pytest.mark.parametrize("argv,suggestion", [(["run", "--outt", "x"], "did you mean --out?"),
                                             (["rn"], "did you mean run?"),
                                             (["pipeline", "shw"], "did you mean show?")])
def test_a_mistyped_option_or_verb_gets_a_suggestion(argv, suggestion, capsys):
    from crawlplan.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(argv)
    assert suggestion in capsys.readouterr().err


def test_a_list_of_inputs_is_still_a_list():
    conf = load_conf("local", overrides=["inputs.warc_paths=[a/warc.paths.gz, b/warc.paths.gz]"])
    assert conf["inputs"]["warc_paths"] == ["a/warc.paths.gz", "b/warc.paths.gz"]
