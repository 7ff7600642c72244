package dev.umbra.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class EventCatalogTest {

    @Test
    void holdsTheWholeCatalogueOfTheDesign() {
        assertThat(EventCatalog.entries()).hasSize(35);
        assertThat(EventCatalog.find("SubscriptionSuspended")).isPresent();
        assertThat(EventCatalog.find("NoSuchEvent")).isEmpty();
    }

    @Test
    void everyEventBelongsToAKnownAggregate() {
        Set<String> aggregates = Arrays.stream(Aggregates.class.getFields())
                .filter(f -> Modifier.isStatic(f.getModifiers()))
                .map(EventCatalogTest::value)
                .collect(Collectors.toSet());

        assertThat(EventCatalog.entries()).allSatisfy(entry -> assertThat(aggregates).contains(entry.aggregateType()));
    }

    @Test
    void namesArePascalCase() {
        assertThat(EventCatalog.entries()).allSatisfy(entry ->
                assertThat(entry.eventType()).matches("([A-Z][a-z]+)+"));
    }

    private static String value(Field field) {
        try {
            return (String) field.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }
}
