"""The package list, found rather than written out: the folders at the top of the repository
install under one name (``rules/`` is ``mahjong_lens.rules``, ``vision/layout/`` is
``mahjong_lens.vision.layout``), which ``[tool.setuptools.packages.find]`` cannot map, so every
package below each folder is found here. Everything else is in pyproject.toml."""
from setuptools import find_packages, setup

# installed name -> folder in the repository
FOLDERS = {
    "mahjong_lens": "mahjong_lens",
    "mahjong_lens.rules": "rules",
    "mahjong_lens.vision": "vision",
    "mahjong_lens.webui": "webui",
    "mahjong_lens.datasets": "datasets",
    "mahjong_lens.training": "training",
}

packages = []
for name, folder in FOLDERS.items():
    packages.append(name)
    packages += [f"{name}.{sub}" for sub in find_packages(folder)]

setup(packages=packages, package_dir=FOLDERS)
