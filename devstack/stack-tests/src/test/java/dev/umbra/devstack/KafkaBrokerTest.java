package dev.umbra.devstack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class KafkaBrokerTest {

    @Test
    void clusterIdsNeverLookLikeACommandLineOption() {
        IntStream.range(0, 5_000).mapToObj(i -> KafkaBroker.clusterId())
                .forEach(id -> assertThat(id).hasSize(22).doesNotStartWith("-"));
    }
}
