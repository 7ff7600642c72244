package dev.umbra.testing;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager.TestInjector;
import java.lang.reflect.Field;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class DevstackResourceTest {

    static class TestWithAFieldItCannotFill {
        @InjectDevstack
        String somethingElse;
    }

    static class TestWithTwoDatabases {
        @InjectDevstack
        Database one;
        @InjectDevstack
        Database two;
    }

    /** Fills the fields of one object, as Quarkus does for a test instance. */
    record FieldsOf(Object target) implements TestInjector {
        @Override
        public void injectIntoFields(Object value, Predicate<Field> predicate) {
            for (Field field : target.getClass().getDeclaredFields()) {
                if (predicate.test(field)) {
                    try {
                        field.set(target, value);
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }
    }

    @Test
    void aMarkedFieldOfATypeItDoesNotProvideFailsTheTestBeforeAnythingStarts() {
        DevstackResource resource = new DevstackResource();
        resource.init(Map.of("database", "anything"));

        assertThatThrownBy(() -> resource.inject(new FieldsOf(new TestWithAFieldItCannotFill())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot fill")
                .hasMessageContaining("somethingElse");
    }

    @Test
    void twoMarkedFieldsOfOneTypeFailTheTestRatherThanLeaveOneEmpty() {
        DevstackResource resource = new DevstackResource();
        resource.init(Map.of("database", "anything"));

        assertThatThrownBy(() -> resource.inject(new FieldsOf(new TestWithTwoDatabases())))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("one field of each type");
    }
}
