"""crawlplan.storage behaves the same through Spark's JVM (Hadoop) and from the client (pyarrow):
a Spark Connect client and a job's marker check before Spark starts use the second."""

import pytest

from crawlplan import filesystems, storage


@pytest.fixture(params=["hadoop", "client"])
def session(request):
    """A classic SparkSession (Hadoop's file systems) or None (pyarrow's, in this process)."""
    return request.getfixturevalue("spark") if request.param == "hadoop" else None


@pytest.mark.quick
def test_the_backend_is_chosen_by_the_session(spark):
    assert isinstance(filesystems.for_spark(spark), filesystems.HadoopFiles)
    assert isinstance(filesystems.for_spark(None), filesystems.ClientFiles)


def test_text_files_round_trip_and_are_replaced_in_place(session, tmp_path):
    path = str(tmp_path / "_markers" / "node.json")
    assert storage.read_json(session, path) is None and not storage.exists(session, path)
    storage.write_text(session, path, '{"fingerprint": "a"}')
    storage.write_text(session, path, '{"fingerprint": "b", "text": "é"}')
    assert storage.read_json(session, path) == {"fingerprint": "b", "text": "é"}
    assert sorted(p.name for p in (tmp_path / "_markers").iterdir()) == ["node.json"]   # no temp, no .crc left


def test_create_new_refuses_an_existing_file_and_rename_reports_a_missing_one(session, tmp_path):
    path = str(tmp_path / "lease")
    assert storage.create_new(session, path, "one") is True
    assert storage.create_new(session, path, "two") is False
    assert storage.read_text(session, path) == "one"
    assert storage.rename(session, path, str(tmp_path / "taken")) is True
    assert storage.rename(session, path, str(tmp_path / "again")) is False


def test_move_replaces_a_folder_and_delete_removes_it(session, tmp_path):
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "a.txt").write_text("new")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "old.txt").write_text("old")
    storage.move(session, str(tmp_path / "new"), str(tmp_path / "data"))
    assert [p.name for p in (tmp_path / "data").iterdir()] == ["a.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]
    assert storage.is_dir(session, str(tmp_path / "data"))
    assert storage.list_dir(session, str(tmp_path)) == [("data", True)]
    storage.delete(session, str(tmp_path / "data"))
    assert not storage.exists(session, str(tmp_path / "data"))
    assert storage.list_dir(session, str(tmp_path / "data")) == []


def test_concat_text_joins_parts_in_partition_order(session, tmp_path):
    folder = tmp_path / "parts"
    folder.mkdir()
    for number, text in ((100000, "c\n"), (2, "b\n"), (1, ""), (0, "a\n")):
        (folder / f"part-{number:05d}-x.txt").write_text(text)
    (folder / "_SUCCESS").write_text("")
    assert [p.rsplit("/", 1)[-1] for p in storage.part_files(session, str(folder))] == [
        "part-00000-x.txt", "part-00001-x.txt", "part-00002-x.txt", "part-100000-x.txt"]
    out = str(tmp_path / "seeds.txt")
    body = storage.concat_text(session, str(folder), out, head="H\n", tail="T\n", empty="none\n", buffer_bytes=3)
    assert body == 6
    assert (tmp_path / "seeds.txt").read_text() == "H\na\nb\nc\nT\n"
    (empty := tmp_path / "empty").mkdir()
    (empty / "part-00000-x.txt").write_text("")
    storage.concat_text(session, str(empty), out, head="H\n", tail="T\n", empty="none\n", buffer_bytes=3)
    assert (tmp_path / "seeds.txt").read_text() == "H\nnone\nT\n"


def test_a_path_no_client_file_system_reaches_is_a_clear_error():
    with pytest.raises(OSError, match="no client-side file system reaches it"):
        storage.exists(None, "nosuchscheme://bucket/out")
