"""naming._filesystems: object stores and file systems."""

import pytest

from olsdk import naming


def test_object_keys_and_paths_are_normalised() -> None:
    assert naming.s3(bucket_name="b", object_key="//a///b//").name == "a/b"
    assert naming.s3(bucket_name="b", object_key="/").name == "/"  # the whole bucket
    assert naming.hdfs(namenode_host="nn", namenode_port=8020, path="/a//./b/").name == "/a/b"
    assert naming.local_file_system(path="data//raw/").name == "data/raw"
    with pytest.raises(ValueError, match="hdfs: path must be an absolute path"):
        naming.hdfs(namenode_host="nn", namenode_port=8020, path="relative")


def test_azure_service_names_accept_full_hosts() -> None:
    by_account = naming.wasbs(container_name="c", service_name="acct", object_key="k")
    by_blob_host = naming.wasbs(container_name="c", service_name="acct.blob.core.windows.net", object_key="k")
    assert by_account == by_blob_host
    with pytest.raises(ValueError, match="abfss: service_name must be a storage account"):
        naming.abfss(container_name="c", service_name="not.an.account", path="p")
