package dev.umbra.testing;

import io.quarkus.runtime.annotations.RegisterForReflection;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What a native image must know by reflection, read from compiled classes with plain Java reflection
 * (no Quarkus start): the payloads of the REST API and REST clients of a module, and what the module
 * and the platform register with {@link RegisterForReflection}. A service's unit test asserts the
 * first is within the second.
 */
public final class NativeReflection {

    private static final String OURS = "dev.umbra.";
    private static final String PLATFORM_REGISTRATIONS = "dev.umbra.platform.nativeimage.PlatformReflection";

    private NativeReflection() {
    }

    /**
     * Every class of ours that a REST resource or REST client of this module (its {@code target/classes})
     * takes as a body or answers with, unwrapped from {@code Uni}, {@code List}, {@code RestResponse} and the
     * like, with the records, enums and classes of ours those hold, recursively.
     */
    public static Set<Class<?>> restPayloads() {
        Set<Class<?>> payloads = new LinkedHashSet<>();
        for (Class<?> type : moduleClasses()) {
            for (Method method : type.getDeclaredMethods()) {
                if (!isEndpoint(method)) {
                    continue;
                }
                collect(method.getGenericReturnType(), payloads);
                for (Parameter parameter : method.getParameters()) {
                    if (isBody(parameter)) {
                        collect(parameter.getParameterizedType(), payloads);
                    }
                }
            }
        }
        return payloads;
    }

    /** The classes registered for reflection by this module's classes and by the platform ({@code PlatformReflection}). */
    @SuppressWarnings("unchecked")
    public static Set<Class<?>> registered() {
        Set<Class<?>> registered = new LinkedHashSet<>();
        try {
            registered.addAll((Set<Class<?>>) load(PLATFORM_REGISTRATIONS).getMethod("classes").invoke(null));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        moduleClasses().forEach(type -> {
            RegisterForReflection registration = type.getAnnotation(RegisterForReflection.class);
            if (registration != null) {
                if (registration.targets().length == 0 && registration.classNames().length == 0) {
                    registered.add(type);
                }
                registered.addAll(List.of(registration.targets()));
                Arrays.stream(registration.classNames()).map(NativeReflection::load).forEach(registered::add);
            }
        });
        return registered;
    }

    private static boolean isEndpoint(Method method) {
        boolean inApi = method.getDeclaringClass().isAnnotationPresent(Path.class) || method.isAnnotationPresent(Path.class);
        return inApi && Arrays.stream(method.getAnnotations()).anyMatch(a -> a.annotationType().isAnnotationPresent(HttpMethod.class));
    }

    /** A parameter without a JAX-RS or RESTEasy Reactive annotation (path, query, header, context…) is the body. */
    private static boolean isBody(Parameter parameter) {
        for (Annotation annotation : parameter.getAnnotations()) {
            String name = annotation.annotationType().getPackageName();
            if (name.startsWith("jakarta.ws.rs") || name.startsWith("org.jboss.resteasy.reactive")) {
                return false;
            }
        }
        return true;
    }

    private static void collect(Type type, Set<Class<?>> payloads) {
        if (type instanceof ParameterizedType parameterized) {
            collect(parameterized.getRawType(), payloads);
            Arrays.stream(parameterized.getActualTypeArguments()).forEach(argument -> collect(argument, payloads));
        } else if (type instanceof GenericArrayType array) {
            collect(array.getGenericComponentType(), payloads);
        } else if (type instanceof WildcardType wildcard) {
            Arrays.stream(wildcard.getUpperBounds()).forEach(bound -> collect(bound, payloads));
        } else if (type instanceof Class<?> plain) {
            if (plain.isArray()) {
                collect(plain.getComponentType(), payloads);
            } else if (plain.getName().startsWith(OURS) && payloads.add(plain) && plain.isRecord()) {
                for (RecordComponent component : plain.getRecordComponents()) {
                    collect(component.getGenericType(), payloads);
                }
            }
        }
    }

    private static List<Class<?>> moduleClasses() {
        java.nio.file.Path classes = java.nio.file.Path.of("target", "classes");
        try (Stream<java.nio.file.Path> files = Files.walk(classes)) {
            return files.filter(f -> f.toString().endsWith(".class"))
                    .map(f -> classes.relativize(f).toString().replace(java.io.File.separatorChar, '.').replaceFirst("\\.class$", ""))
                    .filter(name -> name.startsWith(OURS))
                    .<Class<?>>map(NativeReflection::load)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + classes.toAbsolutePath(), e);
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, NativeReflection.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException(e);
        }
    }
}
