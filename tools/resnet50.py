"""ResNet-50 with random weights for the conv checks (GPU tests, benchmark, demo): torchvision's
`resnet50(weights=None)` when torchvision is installed (nothing is downloaded), else the same network written
here (torchvision's v1.5 layout: the stride of a downsampling bottleneck on its 3x3 conv; same module names and
parameter shapes, so the conv shape list and the quantization report read the same either way).

    model, source = resnet50()            # source: "torchvision" or "local"
    RESNET50_CONVS                         # the distinct (Ci, Co, k, stride, H_in) conv shapes at 224x224
"""
from __future__ import annotations

from typing import List, Tuple

import torch
from torch import nn


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes: int, planes: int, stride: int = 1, downsample: nn.Module = None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        idt = x if self.downsample is None else self.downsample(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        return self.relu(self.bn3(self.conv3(y)) + idt)


class ResNet50(nn.Module):
    def __init__(self, num_classes: int = 1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
        self.inplanes = 64
        self.layer1 = self._layer(64, 3, 1)
        self.layer2 = self._layer(128, 4, 2)
        self.layer3 = self._layer(256, 6, 2)
        self.layer4 = self._layer(512, 3, 2)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(2048, num_classes)
        for m in self.modules():  # torchvision's initialisation
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def _layer(self, planes: int, blocks: int, stride: int) -> nn.Sequential:
        down = None
        if stride != 1 or self.inplanes != planes * 4:
            down = nn.Sequential(nn.Conv2d(self.inplanes, planes * 4, 1, stride=stride, bias=False),
                                 nn.BatchNorm2d(planes * 4))
        layers = [Bottleneck(self.inplanes, planes, stride, down)]
        self.inplanes = planes * 4
        layers += [Bottleneck(self.inplanes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def resnet50(seed: int = 0) -> Tuple[nn.Module, str]:
    """(model in eval mode, "torchvision" | "local"), random weights from `seed`."""
    torch.manual_seed(seed)
    try:
        import torchvision  # noqa: PLC0415
        return torchvision.models.resnet50(weights=None).eval(), "torchvision"
    except ImportError:
        return ResNet50().eval(), "local"


#: (name, Ci, Co, kernel, stride, H=W of the input) of ResNet-50's distinct convs after the stem, at 224x224.
RESNET50_CONVS: List[Tuple[str, int, int, int, int, int]] = [
    ("l1.3x3", 64, 64, 3, 1, 56), ("l1.1x1a", 64, 64, 1, 1, 56), ("l1.1x1b", 64, 256, 1, 1, 56),
    ("l1.1x1c", 256, 64, 1, 1, 56),
    ("l2.3x3s2", 128, 128, 3, 2, 56), ("l2.3x3", 128, 128, 3, 1, 28), ("l2.down", 256, 512, 1, 2, 56),
    ("l2.1x1c", 512, 128, 1, 1, 28),
    ("l3.3x3s2", 256, 256, 3, 2, 28), ("l3.3x3", 256, 256, 3, 1, 14), ("l3.down", 512, 1024, 1, 2, 28),
    ("l3.1x1c", 1024, 256, 1, 1, 14),
    ("l4.3x3s2", 512, 512, 3, 2, 14), ("l4.3x3", 512, 512, 3, 1, 7), ("l4.down", 1024, 2048, 1, 2, 14),
    ("l4.1x1c", 2048, 512, 1, 1, 7),
]
