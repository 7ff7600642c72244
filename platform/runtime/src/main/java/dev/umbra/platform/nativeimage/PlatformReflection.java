package dev.umbra.platform.nativeimage;

import dev.umbra.events.EventCatalog;
import dev.umbra.platform.web.Problem;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What the platform reads and writes with Jackson by reflection on its own, so what a native image
 * must register for it (Quarkus registers the bodies of REST resource methods, not these): every
 * payload of the event catalogue (the outbox writes them, the inbox reads them), the records and enums
 * of ours they hold, and the problem details of every error answer. Derived from {@link EventCatalog},
 * so a new event needs nothing here; {@link PlatformReflectionFeature} registers them.
 */
public final class PlatformReflection {

    private PlatformReflection() {
    }

    public static Set<Class<?>> classes() {
        Set<Class<?>> classes = new LinkedHashSet<>();
        EventCatalog.entries().forEach(entry -> withWhatItHolds(entry.payloadType(), classes));
        withWhatItHolds(Problem.class, classes);
        return classes;
    }

    private static void withWhatItHolds(Type type, Set<Class<?>> classes) {
        if (type instanceof ParameterizedType parameterized) {
            for (Type argument : parameterized.getActualTypeArguments()) {
                withWhatItHolds(argument, classes);
            }
        } else if (type instanceof Class<?> plain && plain.getName().startsWith("dev.umbra.") && classes.add(plain) && plain.isRecord()) {
            for (RecordComponent component : plain.getRecordComponents()) {
                withWhatItHolds(component.getGenericType(), classes);
            }
        }
    }
}
